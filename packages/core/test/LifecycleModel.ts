import { describe, expect, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Either, FastCheck as fc, TestClock, TestContext } from "effect"
import {
  AttemptResult,
  beginAttempt,
  createPost,
  decidePost,
  deletePost,
  type DeliveryId,
  editPost,
  finishAttempt,
  type PostId,
  type PostStatus,
  retryDelivery,
  takedownDelivery
} from "@herald/core"
import { makeWorld } from "./World.js"

/**
 * Model-based properties of the lifecycle: random sequences of create / approve / reject / edit /
 * delete (and unschedule) / publish outcomes / retry / takedown / time passing run through the use
 * cases on in-memory adapters, and after every step the stored posts are compared with a small
 * model of what may have happened.
 */
type Actor = "agent" | "human"
type Action =
  | { readonly _tag: "Create"; readonly actor: Actor; readonly draft: boolean; readonly later: boolean; readonly targets: number }
  | { readonly _tag: "Approve"; readonly actor: Actor; readonly pick: number }
  | { readonly _tag: "Reject"; readonly actor: Actor; readonly pick: number; readonly reason: string }
  | { readonly _tag: "Edit"; readonly actor: Actor; readonly pick: number; readonly draft: boolean | null; readonly clear: boolean }
  | { readonly _tag: "Delete"; readonly actor: Actor; readonly pick: number }
  | { readonly _tag: "Publish"; readonly pick: number; readonly outcome: "ok" | "permanent" | "transient" | "unknown" }
  | { readonly _tag: "Retry"; readonly actor: Actor; readonly pick: number }
  | { readonly _tag: "Takedown"; readonly actor: Actor; readonly pick: number }
  | { readonly _tag: "Advance"; readonly minutes: number }

const actor = fc.constantFrom<Actor>("agent", "human")
const pick = fc.nat({ max: 50 })
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ _tag: fc.constant("Create" as const), actor, draft: fc.boolean(), later: fc.boolean(), targets: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Approve" as const), actor, pick }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Reject" as const), actor, pick, reason: fc.string({ minLength: 1, maxLength: 20 }) }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Edit" as const), actor, pick, draft: fc.constantFrom(null, true, false), clear: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Delete" as const), actor, pick }) },
  { weight: 4, arbitrary: fc.record({ _tag: fc.constant("Publish" as const), pick, outcome: fc.constantFrom<"ok" | "permanent" | "transient" | "unknown">("ok", "permanent", "transient", "unknown") }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Retry" as const), actor, pick }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Takedown" as const), actor, pick }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Advance" as const), minutes: fc.integer({ min: 1, max: 45 }) }) }
)

/** Every status change one post may make in place (edits write a new post instead). */
const allowed: Record<PostStatus, ReadonlyArray<PostStatus>> = {
  pending_approval: ["scheduled", "processing", "rejected"],
  scheduled: ["processing", "pending_approval", "draft"],
  processing: ["posted", "partial", "failed"],
  failed: ["processing"],
  partial: ["processing"],
  posted: [],
  draft: [],
  rejected: []
}
const initial: ReadonlyArray<PostStatus> = ["pending_approval", "draft", "scheduled", "processing"]

interface Observation {
  readonly status: PostStatus
  readonly wentOut: number
}

const run = (actions: ReadonlyArray<Action>, approval: "copilot" | "autopilot") => {
  const world = makeWorld({ approval })
  const keyOf = (who: Actor) => (who === "agent" ? world.agent : world.human)
  const known: Array<PostId> = []
  const seen = new Set<string>()
  const reasons = new Map<string, string>()

  const live = () => [...world.data.posts.values()].filter((record) => record.post.supersededBy === null)
  const snapshot = () =>
    new Map([...world.data.posts.values()].filter((r) => r.post.supersededBy === null).map((record) => [
      record.post.id as string,
      { status: record.post.status, wentOut: record.deliveries.filter((d) => d.wentOut).length } satisfies Observation
    ]))
  const postAt = (n: number) => known[n % Math.max(known.length, 1)]
  const remember = (id: PostId) => {
    expect(seen.has(id), `post id ${id} is fresh`).toBe(false)
    seen.add(id)
    known.push(id)
  }
  const deliveryAt = (n: number, accept: (status: string) => boolean, now: DateTime.Utc) => {
    const candidates = live().flatMap((record) => record.deliveries)
      .filter((d) => accept(d.status) && (d.dueAt === null || !DateTime.greaterThan(d.dueAt, now)))
    return candidates.length === 0 ? undefined : candidates[n % candidates.length]!
  }

  const step = (act: Action) =>
    Effect.gen(function*() {
      let before = snapshot()
      const now = yield* DateTime.now
      switch (act._tag) {
        case "Create": {
          const result = yield* createPost(keyOf(act.actor), {
            caption: "Spring launch, out now",
            social_accounts: world.accounts.slice(0, act.targets).map((account) => `${account.platform}:${account.username}`),
            is_draft: act.draft,
            ...(act.later ? { scheduled_at: DateTime.formatIso(DateTime.add(now, { minutes: 30 })) } : {})
          })
          expect(initial).toContain(result.record.post.status)
          remember(result.record.post.id)
          break
        }
        case "Approve":
        case "Reject": {
          const id = postAt(act.pick)
          if (id === undefined) break
          const result = yield* Effect.either(decidePost(keyOf(act.actor), id, act._tag === "Approve"
            ? { decision: "approve" }
            : { decision: "reject", reason: act.reason }))
          if (act.actor === "agent") {
            // agent keys never approve (nor reject), whatever the post's state
            expect(Either.isLeft(result) && result.left._tag).toBe("AgentCannotApprove")
          } else {
            expect(Either.isRight(result)).toBe(before.get(id)?.status === "pending_approval")
            if (Either.isRight(result) && act._tag === "Reject") reasons.set(id, act.reason)
          }
          break
        }
        case "Edit": {
          const id = postAt(act.pick)
          if (id === undefined) break
          const result = yield* Effect.either(editPost(keyOf(act.actor), id, {
            caption: "Spring launch, edited",
            ...(act.draft === null ? {} : { is_draft: act.draft }),
            ...(act.clear ? { scheduled_at: null } : {})
          }))
          const was = before.get(id)
          const editable = was !== undefined && ["pending_approval", "draft", "scheduled", "rejected"].includes(was.status)
          expect(Either.isRight(result), `edit of ${was?.status ?? "a gone post"}`).toBe(editable)
          if (Either.isRight(result)) {
            // supersede always yields a new id, and nothing that went out is ever edited
            expect(result.right.post.id).not.toBe(id)
            expect(was?.wentOut).toBe(0)
            expect(world.data.posts.get(id)?.post.supersededBy).toBe(result.right.post.id)
            remember(result.right.post.id)
          }
          break
        }
        case "Delete": {
          const id = postAt(act.pick)
          if (id === undefined) break
          const result = yield* Effect.either(deletePost(keyOf(act.actor), id))
          const was = before.get(id)
          if (Either.isRight(result)) {
            expect(was?.wentOut, "nothing that went out is deleted").toBe(0)
            expect(world.data.posts.has(id)).toBe(!result.right.deleted)
          }
          if (was !== undefined && was.wentOut > 0) expect(Either.isLeft(result)).toBe(true)
          break
        }
        case "Publish": {
          const delivery = deliveryAt(act.pick, (status) => status === "queued" || status === "unknown", now)
          if (delivery === undefined) break
          yield* beginAttempt(world.projectId, delivery.id)
          // the intent and the outcome are two commits: each must be a step of the table
          check(before)
          before = snapshot()
          const later = DateTime.add(now, { minutes: 1 })
          const error = { category: "transient" as const, code: "simulated", message: "simulated outcome" }
          yield* finishAttempt(world.projectId, delivery.id, act.outcome === "ok"
            ? AttemptResult.Published({ platformPostId: `p-${delivery.id}`, url: `https://x.test/${delivery.id}`, note: null, followUpPostIds: [], reconciled: false })
            : act.outcome === "unknown"
            ? AttemptResult.Unknown({ error, recheckAt: later })
            : AttemptResult.Failed({ error, retryAt: act.outcome === "transient" ? later : null }))
          break
        }
        case "Retry":
        case "Takedown": {
          const all = live().flatMap((record) => record.deliveries)
          const delivery = all.length === 0 ? undefined : all[act.pick % all.length]!
          if (delivery === undefined) break
          const result = yield* Effect.either(act._tag === "Retry"
            ? retryDelivery(keyOf(act.actor), delivery.id as DeliveryId)
            : takedownDelivery(keyOf(act.actor), delivery.id as DeliveryId))
          expect(Either.isRight(result)).toBe(act._tag === "Retry" ? delivery.status === "failed" : delivery.status === "success")
          break
        }
        case "Advance":
          yield* TestClock.adjust(Duration.minutes(act.minutes))
          break
      }
      check(before)
    })

  const check = (before: ReadonlyMap<string, Observation>) => {
    for (const record of live()) {
      const { deliveries, post } = record
      const was = before.get(post.id)
      // no transition outside the table
      if (was !== undefined && was.status !== post.status) {
        expect(allowed[was.status], `${was.status} -> ${post.status}`).toContain(post.status)
      }
      // delivery counts add up
      const out = deliveries.filter((d) => d.wentOut).length
      expect(deliveries.length).toBe(post.accountIds.length)
      if (was !== undefined) expect(out).toBeGreaterThanOrEqual(was.wentOut)
      switch (post.status) {
        case "posted":
          expect(out).toBe(deliveries.length)
          break
        case "partial":
          expect(out).toBeGreaterThan(0)
          expect(out).toBeLessThan(deliveries.length)
          expect(deliveries.every((d) => d.settled)).toBe(true)
          break
        case "failed":
          expect(out).toBe(0)
          expect(deliveries.every((d) => d.settled)).toBe(true)
          break
        case "processing":
          expect(deliveries.some((d) => !d.settled)).toBe(true)
          break
        case "scheduled":
          expect(deliveries.every((d) => d.status === "queued")).toBe(true)
          break
        default:
          expect(deliveries.every((d) => d.status === "pending")).toBe(true)
      }
      // a rejected post keeps its reason
      if (post.status === "rejected") expect(post.decision?.reason).toBe(reasons.get(post.id))
    }
    // a post that went out never disappears
    for (const [id, was] of before) {
      if (was.wentOut > 0) expect(world.data.posts.get(id)?.post.supersededBy, `post ${id} went out and stays`).toBeNull()
    }
  }

  return Effect.forEach(actions, step, { discard: true }).pipe(
    Effect.provide(world.layer),
    Effect.provide(TestContext.TestContext)
  )
}

const runs = Number(process.env.HERALD_PROPERTY_RUNS ?? 1000)

/**
 * The property for one approval mode. Each mode has a test file of its own
 * (LifecycleModel{Copilot,Autopilot}.test.ts), so the two, most of core's test time, run on
 * separate workers.
 */
export const lifecycleModel = (approval: "copilot" | "autopilot") =>
  describe("lifecycle model", () => {
    it(`random command sequences keep every invariant (${approval})`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 40 }), (actions) => Effect.runPromise(run(actions, approval))),
        { numRuns: runs }
      )
    }, 300_000)
  })
