import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { type LifecycleEvent, LifecycleEvent as E, type LifecycleState, transition } from "@herald/core"
import type { ActorKind, ApprovalMode, PostStatus } from "@herald/core"

const state = (status: PostStatus, author: ActorKind = "agent", decision: LifecycleState["decision"] = null) => ({
  status,
  author,
  decision
})

const next = (from: LifecycleState | null, event: LifecycleEvent, actor: ActorKind, mode: ApprovalMode) =>
  Either.match(transition(from, event, actor, mode), {
    onLeft: (refusal) => refusal._tag === "Conflict" ? `conflict:${refusal.code}` : refusal._tag,
    onRight: (outcome) => outcome._tag === "Status" ? outcome.status : outcome._tag === "Unscheduled" ? `unscheduled:${outcome.status}` : "removed"
  })

describe("the contract's state table", () => {
  const rows: ReadonlyArray<[string, LifecycleState | null, LifecycleEvent, ActorKind, ApprovalMode, string]> = [
    ["copilot agent create is held", null, E.Create({ draft: false, due: true }), "agent", "copilot", "pending_approval"],
    ["copilot agent scheduled create is held", null, E.Create({ draft: false, due: false }), "agent", "copilot", "pending_approval"],
    ["is_draft creates a draft", null, E.Create({ draft: true, due: true }), "agent", "copilot", "draft"],
    ["scheduled_at ahead, autopilot", null, E.Create({ draft: false, due: false }), "agent", "autopilot", "scheduled"],
    ["human in copilot is not held", null, E.Create({ draft: false, due: false }), "human", "copilot", "scheduled"],
    ["nothing awaited publishes", null, E.Create({ draft: false, due: true }), "human", "autopilot", "processing"],
    ["approve, time ahead", state("pending_approval"), E.Approve({ due: false }), "human", "copilot", "scheduled"],
    ["approve, no time", state("pending_approval"), E.Approve({ due: true }), "human", "copilot", "processing"],
    ["reject", state("pending_approval"), E.Reject(), "human", "copilot", "rejected"],
    ["agent never approves", state("pending_approval"), E.Approve({ due: true }), "agent", "copilot", "AgentCannotDecide"],
    ["agent never rejects", state("pending_approval"), E.Reject(), "agent", "copilot", "AgentCannotDecide"],
    ["approve a decided post", state("scheduled", "agent", "approved"), E.Approve({ due: true }), "human", "copilot", "conflict:post_not_pending_approval"],
    ["edit pending stays held", state("pending_approval"), E.Edit({ due: true, draft: null }), "human", "copilot", "pending_approval"],
    ["edit draft stays draft", state("draft"), E.Edit({ due: true, draft: null }), "agent", "autopilot", "draft"],
    ["draft released by a human", state("draft"), E.Edit({ due: false, draft: false }), "human", "copilot", "scheduled"],
    ["draft released by a copilot agent is held", state("draft"), E.Edit({ due: true, draft: false }), "agent", "copilot", "pending_approval"],
    ["edit rejected goes back to a person", state("rejected", "agent", "rejected"), E.Edit({ due: true, draft: null }), "agent", "autopilot", "pending_approval"],
    ["agent edit of a human-approved post", state("scheduled", "agent", "approved"), E.Edit({ due: false, draft: null }), "agent", "autopilot", "pending_approval"],
    ["human edit of an approved post", state("scheduled", "agent", "approved"), E.Edit({ due: false, draft: null }), "human", "copilot", "scheduled"],
    ["autopilot agent edit of its own scheduled post", state("scheduled"), E.Edit({ due: false, draft: null }), "agent", "autopilot", "scheduled"],
    ["edit into draft", state("scheduled"), E.Edit({ due: false, draft: true }), "human", "autopilot", "draft"],
    ["edit processing refused", state("processing"), E.Edit({ due: true, draft: null }), "human", "autopilot", "NotEditable"],
    ["edit posted refused", state("posted"), E.Edit({ due: true, draft: null }), "human", "autopilot", "NotEditable"],
    ["edit failed refused", state("failed"), E.Edit({ due: true, draft: null }), "human", "autopilot", "NotEditable"],
    ["unschedule a copilot agent post", state("scheduled", "agent", "approved"), E.Delete(), "human", "copilot", "unscheduled:pending_approval"],
    ["unschedule a human post", state("scheduled", "human"), E.Delete(), "agent", "copilot", "unscheduled:draft"],
    ["unschedule in autopilot", state("scheduled", "agent"), E.Delete(), "agent", "autopilot", "unscheduled:draft"],
    ["agent deletes its pending post", state("pending_approval"), E.Delete(), "agent", "copilot", "removed"],
    ["agent deletes its rejected post", state("rejected", "agent", "rejected"), E.Delete(), "agent", "copilot", "removed"],
    ["agent deletes its failed post", state("failed"), E.Delete(), "agent", "autopilot", "removed"],
    ["agent cannot delete a human's draft", state("draft", "human"), E.Delete(), "agent", "autopilot", "conflict:post_not_deletable"],
    ["nobody deletes a person-approved post", state("failed", "agent", "approved"), E.Delete(), "human", "copilot", "conflict:post_approved"],
    ["human deletes a failed post", state("failed", "human"), E.Delete(), "human", "autopilot", "removed"],
    ["nobody deletes what went out", state("posted", "human"), E.Delete(), "human", "autopilot", "conflict:post_not_deletable"],
    ["nobody deletes a partial post", state("partial", "human"), E.Delete(), "human", "autopilot", "conflict:post_not_deletable"],
    ["nobody deletes a processing post", state("processing", "human"), E.Delete(), "human", "autopilot", "conflict:post_not_deletable"],
    ["time comes", state("scheduled"), E.Release(), "agent", "autopilot", "processing"],
    ["all delivered", state("processing"), E.Settle({ delivered: 3, targets: 3 }), "agent", "autopilot", "posted"],
    ["some delivered", state("processing"), E.Settle({ delivered: 1, targets: 3 }), "agent", "autopilot", "partial"],
    ["none delivered", state("processing"), E.Settle({ delivered: 0, targets: 3 }), "agent", "autopilot", "failed"],
    ["settle outside processing", state("scheduled"), E.Settle({ delivered: 0, targets: 1 }), "agent", "autopilot", "conflict:not_processing"],
    ["retry on failed", state("failed"), E.Retry(), "human", "autopilot", "processing"],
    ["retry on partial", state("partial"), E.Retry(), "agent", "autopilot", "processing"],
    ["retry on posted", state("posted"), E.Retry(), "human", "autopilot", "conflict:delivery_not_failed"],
    ["takedown on posted", state("posted"), E.Takedown(), "human", "autopilot", "posted"],
    ["takedown before anything went out", state("scheduled"), E.Takedown(), "human", "autopilot", "conflict:delivery_never_went_out"]
  ]
  for (const [name, from, event, actor, mode, expected] of rows) {
    it(name, () => expect(next(from, event, actor, mode)).toBe(expected))
  }
})
