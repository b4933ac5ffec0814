import { Data, Either } from "effect"
import type { StateConflictCode } from "./Errors.js"
import type { ApprovalMode } from "./Project.js"
import type { PostStatus } from "./Post.js"
import type { ActorKind } from "./Principal.js"

/**
 * The post lifecycle as a pure transition function: (state, event, actor, mode) → next status.
 * Every row of the contract's state table is a branch here, and so is every transition the
 * contract leaves open (docs/lifecycle.md draws the whole machine). Use cases call `transition`
 * and never set a status on their own.
 */
export interface LifecycleState {
  readonly status: PostStatus
  /** Kind of key that wrote the post (an edit's successor is written by the editor). */
  readonly author: ActorKind
  /** A person's decision on these words, carried across human edits. */
  readonly decision: "approved" | "rejected" | null
}

export type LifecycleEvent = Data.TaggedEnum<{
  /** POST /posts. `due` is false when scheduled_at is in the future. */
  Create: { readonly draft: boolean; readonly due: boolean }
  /** `due` is false when the post's scheduled_at is still in the future. */
  Approve: { readonly due: boolean }
  Reject: {}
  /** PATCH: the successor's status; `due` as for Create; draft true/false moves in or out of draft, null keeps. */
  Edit: { readonly due: boolean; readonly draft: boolean | null }
  Delete: {}
  /** A worker takes the first due delivery of a scheduled post. */
  Release: {}
  /** Every delivery reached a final state. */
  Settle: { readonly delivered: number; readonly targets: number }
  /** A failed delivery is queued again. */
  Retry: {}
  /** A delivered post is removed from its platform. */
  Takedown: {}
}>
export const LifecycleEvent = Data.taggedEnum<LifecycleEvent>()

export type Outcome =
  | { readonly _tag: "Status"; readonly status: PostStatus; readonly decision: LifecycleState["decision"] }
  /** DELETE of a scheduled post: it is unscheduled, not removed. */
  | { readonly _tag: "Unscheduled"; readonly status: "pending_approval" | "draft" }
  | { readonly _tag: "Removed" }

export type Refusal = Data.TaggedEnum<{
  /** 400 on PATCH: the post has gone out or was already tried. */
  NotEditable: { readonly status: PostStatus }
  /** 403: agent keys never decide. */
  AgentCannotDecide: {}
  /** 409 with a stable code; an OutOfTurnCode only on events Herald itself sends. */
  Conflict: { readonly code: StateConflictCode | OutOfTurnCode; readonly detail: string }
}>
export const Refusal = Data.taggedEnum<Refusal>()

/**
 * The refusals of events only Herald sends (a create of a post that exists, an event on no post, a
 * release or settle out of turn): a use case acting for a client never meets them.
 */
export type OutOfTurnCode = "already_exists" | "no_such_post" | "not_processing" | "not_scheduled"

/** Statuses in which nothing has been tried yet: the post may still be edited. */
export const editableStatuses: ReadonlyArray<PostStatus> = ["pending_approval", "draft", "scheduled", "rejected"]
/** Statuses a DELETE may remove (subject to who asks and whether a person approved it). */
export const deletableStatuses: ReadonlyArray<PostStatus> = ["pending_approval", "draft", "rejected", "failed"]

/** A post waits for a person when an agent wrote it in copilot mode. */
export const needsApproval = (author: ActorKind, mode: ApprovalMode): boolean =>
  author === "agent" && mode === "copilot"

const status = (next: PostStatus, decision: LifecycleState["decision"]): Either.Either<Outcome, Refusal> =>
  Either.right({ _tag: "Status", status: next, decision })

const conflict = (code: StateConflictCode | OutOfTurnCode, detail: string) => Either.left(Refusal.Conflict({ code, detail }))

const released = (due: boolean): PostStatus => (due ? "processing" : "scheduled")

export const transition = (
  state: LifecycleState | null,
  event: LifecycleEvent,
  actor: ActorKind,
  mode: ApprovalMode
): Either.Either<Outcome, Refusal> => {
  if (state === null) {
    return event._tag === "Create"
      ? status(
        event.draft ? "draft" : needsApproval(actor, mode) ? "pending_approval" : released(event.due),
        null
      )
      : conflict("no_such_post", "there is no post to apply this to")
  }
  return LifecycleEvent.$match(event, {
    Create: () => conflict("already_exists", "the post already exists"),
    Approve: ({ due }) => decide(state, actor, due),
    Reject: () => decide(state, actor, null),
    Edit: ({ draft, due }) => edit(state, actor, mode, due, draft),
    Delete: () => remove(state, actor, mode),
    Release: () =>
      state.status === "scheduled"
        ? status("processing", state.decision)
        : conflict("not_scheduled", `a ${state.status} post is not waiting for its time`),
    Settle: ({ delivered, targets }) =>
      state.status !== "processing"
        ? conflict("not_processing", `a ${state.status} post has nothing in flight`)
        : status(delivered === 0 ? "failed" : delivered === targets ? "posted" : "partial", state.decision),
    Retry: () =>
      state.status === "failed" || state.status === "partial" || state.status === "processing"
        ? status("processing", state.decision)
        : conflict("delivery_not_failed", `a ${state.status} post has no failed delivery to retry`),
    Takedown: () =>
      state.status === "posted" || state.status === "partial" || state.status === "processing"
        ? status(state.status, state.decision)
        : conflict("delivery_never_went_out", `a ${state.status} post has nothing live to take down`)
  })
}

/** due null: a rejection. */
const decide = (state: LifecycleState, actor: ActorKind, due: boolean | null) => {
  if (actor === "agent") return Either.left(Refusal.AgentCannotDecide())
  if (state.status !== "pending_approval") {
    return conflict("post_not_pending_approval", `the post is ${state.status}, not pending approval`)
  }
  return due === null ? status("rejected", "rejected") : status(released(due), "approved")
}

const edit = (state: LifecycleState, actor: ActorKind, mode: ApprovalMode, due: boolean, draft: boolean | null) => {
  if (!editableStatuses.includes(state.status)) return Either.left(Refusal.NotEditable({ status: state.status }))
  if (draft === true || (state.status === "draft" && draft === null)) return status("draft", null)
  // Only a person's approval releases a held or rejected post; an edit alone never does.
  if (state.status === "pending_approval" || state.status === "rejected") return status("pending_approval", null)
  // Approval was for the old words: an agent's edit goes back to a person when a person decided
  // the post or the project holds agent posts.
  return actor === "agent" && (state.decision !== null || needsApproval(actor, mode))
    ? status("pending_approval", null)
    : status(released(due), state.decision)
}

const remove = (state: LifecycleState, actor: ActorKind, mode: ApprovalMode) => {
  if (state.status === "scheduled") {
    return Either.right<Outcome>({
      _tag: "Unscheduled",
      status: needsApproval(state.author, mode) ? "pending_approval" : "draft"
    })
  }
  if (!deletableStatuses.includes(state.status)) {
    return conflict("post_not_deletable", `a ${state.status} post has gone out and cannot be deleted`)
  }
  if (state.decision === "approved") {
    return conflict("post_approved", "a person approved this post; it cannot be deleted (unschedule or retry it instead)")
  }
  if (actor === "agent" && state.author !== "agent") {
    return conflict("post_not_deletable", "an agent key may delete only posts an agent created")
  }
  return Either.right<Outcome>({ _tag: "Removed" })
}
