// The storage contract of MetricsStore: which deliveries are due a sync (under leases), what a
// sync writes, and the analytics roll-ups over what was written.
import { describe, expect } from "@effect/vitest"
import {
  AccountId,
  type BestTimesFilter,
  bestTimeCellsOf,
  bestTimesOfCells,
  type ContentFormat,
  Delivery,
  DeliveryId,
  type DeliveryStatus,
  formatOfPlacement,
  insightsOf,
  MetricsStore,
  type NewPost,
  type Placement,
  type Platform,
  Post,
  PostChange,
  PostId,
  type ProjectId,
  PostStore,
  rankingMetrics,
  type ReportedCounts,
  SyncOutcome,
  type SyncSchedule,
  topPostsOf,
  type TrackedDelivery
} from "@herald/core"
import { DateTime, Duration, Effect, FastCheck as fc } from "effect"
import { randomUUID } from "node:crypto"
import type { Cases } from "./StorageContract.js"
import { newKeyId, newProject, t0 } from "./StorageFixtures.js"

export const schedule: SyncSchedule = { firstAfter: Duration.minutes(15), every: Duration.hours(6), lastAfter: Duration.days(30) }

export interface WentOut {
  readonly platform: Platform
  readonly placement?: Placement
  readonly status?: DeliveryStatus
  readonly publishedAt: DateTime.Utc
}

/** One post whose deliveries went out (success unless said), one per entry, each published at its time. */
export const publishedPost = (projectId: ProjectId, entries: ReadonlyArray<WentOut>): NewPost => {
  const postId = PostId.make(randomUUID())
  const createdAt = entries.reduce((first, entry) => DateTime.min(first, entry.publishedAt), entries[0]!.publishedAt)
  const accountIds = entries.map(() => AccountId.make(randomUUID()))
  const configurations: Record<string, { placement: Placement }> = {}
  for (const entry of entries) if (entry.placement !== undefined) configurations[entry.platform] = { placement: entry.placement }
  const keyId = newKeyId()
  const post = new Post({
    id: postId,
    projectId,
    version: 1,
    status: "posted",
    caption: "Numbers please",
    signature: "",
    skipSignature: true,
    accountIds,
    mediaIds: [],
    scheduledAt: null,
    platformConfigurations: configurations,
    author: { keyId, keyName: null, kind: "human", surface: null },
    origin: { keyId, keyName: null, kind: "human", surface: null },
    decision: null,
    supersedes: null,
    supersededBy: null,
    idempotencyKey: null,
    createdAt,
    updatedAt: createdAt
  })
  const deliveries = entries.map((entry, index) => {
    const platformPostId = `${entry.platform}-${randomUUID()}`
    return new Delivery({
      id: DeliveryId.make(randomUUID()),
      postId,
      projectId,
      accountId: accountIds[index]!,
      platform: entry.platform,
      username: `acct${index}`,
      status: entry.status ?? "success",
      dueAt: null,
      url: `https://${entry.platform}.test/p/${platformPostId}`,
      platformPostId,
      error: null,
      note: null,
      attempts: [{ number: 1, startedAt: entry.publishedAt, finishedAt: entry.publishedAt, outcome: "success", error: null }],
      takedown: null,
      createdAt,
      updatedAt: entry.publishedAt
    })
  })
  return { record: { post, deliveries }, events: [], idempotency: null, dailyCap: null }
}

const counts = (values: Partial<ReportedCounts>): ReportedCounts => ({
  views: null, likes: null, comments: null, shares: null, reach: null, saves: null, ...values
})

const propertySchedule: SyncSchedule = { firstAfter: Duration.zero, every: Duration.hours(6), lastAfter: Duration.days(60) }
const runs = Number(process.env.HERALD_ANALYTICS_RUNS ?? 12)
const countArb = fc.option(fc.nat({ max: 500 }), { nil: null })
const countsArb: fc.Arbitrary<ReportedCounts> = fc.record({ views: countArb, likes: countArb, comments: countArb, shares: countArb, reach: countArb, saves: countArb })
type SyncSpec = { readonly _tag: "report"; readonly counts: ReportedCounts } | { readonly _tag: "gone"; readonly reason: "deleted" | "expired" | "unsupported" }
const syncArb: fc.Arbitrary<SyncSpec | undefined> = fc.oneof(
  fc.constant(undefined),
  countsArb.map((counts) => ({ _tag: "report" as const, counts })),
  fc.constantFrom("deleted" as const, "expired" as const, "unsupported" as const).map((reason) => ({ _tag: "gone" as const, reason }))
)
const platformArb = fc.constantFrom<Platform>("x", "instagram", "facebook", "linkedin")
/**
 * Posts over the last 40 days, each delivery published together with its post or up to three
 * hours later (so some span UTC hours), in every state syncs leave; windows that start anywhere,
 * often inside an hour with posts.
 */
const scenarios = fc.record({
  posts: fc.array(fc.record({
    // Most within a few hours of each other, so hours hold several posts and windows start among them.
    minutesAgo: fc.oneof(fc.nat({ max: 40 * 24 * 60 }), fc.integer({ min: 24 * 60, max: 24 * 60 + 300 }), fc.integer({ min: 24 * 60, max: 24 * 60 + 300 })),
    deliveries: fc.array(fc.record({
      platform: platformArb,
      placement: fc.constantFrom<Placement | null>(null, null, "reels", "stories"),
      takenDown: fc.constantFrom(false, false, false, true),
      minutesLater: fc.oneof(fc.constant(0), fc.constant(0), fc.nat({ max: 180 })),
      syncs: fc.tuple(syncArb, syncArb)
    }), { minLength: 1, maxLength: 3 }),
    removed: fc.constantFrom(false, false, false, false, true)
  }), { maxLength: 14 }),
  queries: fc.array(fc.record({
    minutesBack: fc.oneof(fc.integer({ min: 1, max: 45 * 24 * 60 }), fc.integer({ min: 24 * 60 - 60, max: 24 * 60 + 360 })),
    platform: fc.option(platformArb, { nil: null }),
    format: fc.option(fc.constantFrom<ContentFormat>("feed", "reel", "story"), { nil: null }),
    metric: fc.constantFrom(...rankingMetrics),
    limit: fc.integer({ min: 1, max: 20 }),
    account: fc.option(fc.nat(), { nil: null })
  }), { minLength: 1, maxLength: 4 })
})

export const metricsStoreCases: Cases<PostStore | MetricsStore> = (it) => {
  describe("MetricsStore", () => {
    // Each case has its own stretch of time, so leases one case leaves do not meet another's claims.
    const base = (day: number) => DateTime.add(t0, { days: 1000 + day * 100 })

    it.effect("a delivery that went out is due firstAfter past publishing, then every period, and never past the schedule's end", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const store = yield* MetricsStore
        const project = newProject()
        const published = base(1)
        const input = publishedPost(project.id, [{ platform: "x", publishedAt: published }])
        yield* posts.create(input)
        const id = input.record.deliveries[0]!.id
        const claim = (now: DateTime.Utc, worker = "w1") =>
          Effect.map(store.claimDue({ now, limit: 1000, leaseMillis: 60_000, worker, schedule }), (claims) => claims.filter((c) => c.deliveryId === id))
        expect(yield* claim(DateTime.add(published, { minutes: 14 }))).toEqual([])
        const first = DateTime.add(published, { minutes: 15 })
        const [claimed] = yield* claim(first)
        expect(claimed).toMatchObject({ deliveryId: id, projectId: project.id, platform: "x", platformPostId: input.record.deliveries[0]!.platformPostId })
        expect(DateTime.formatIso(claimed!.publishedAt)).toBe(DateTime.formatIso(published))
        // Held: not handed out again.
        expect(yield* claim(first, "w2")).toEqual([])
        // Only the holder can settle it.
        expect(yield* store.settle(id, "w2", SyncOutcome.Reported({ counts: counts({ views: 1 }), at: first }), schedule)).toBe(false)
        expect(yield* store.settle(id, "w1", SyncOutcome.Reported({ counts: counts({ views: 10, likes: 2 }), at: first }), schedule)).toBe(true)
        expect(yield* claim(DateTime.add(first, { hours: 5 }))).toEqual([])
        const second = DateTime.add(first, { hours: 6 })
        expect(yield* claim(second)).toHaveLength(1)
        yield* store.settle(id, "w1", SyncOutcome.Reported({ counts: counts({ views: 25, likes: 4 }), at: second }), schedule)
        const history = yield* store.history(id)
        expect(history.map((snapshot) => [DateTime.formatIso(snapshot.takenAt), snapshot.counts.views, snapshot.counts.likes])).toEqual([
          [DateTime.formatIso(first), 10, 2],
          [DateTime.formatIso(second), 25, 4]
        ])
        const [row] = yield* store.ofPost(project.id, input.record.post.id)
        expect(row).toMatchObject({ delivery_id: id, views: 25, likes: 4, comments: null, engagement: 4, unreportable: null, synced_at: DateTime.formatIso(second) })
        // A sync whose next one would fall past lastAfter is the last.
        const late = DateTime.add(published, { days: 29, hours: 20 })
        expect(yield* claim(late)).toHaveLength(1)
        yield* store.settle(id, "w1", SyncOutcome.Reported({ counts: counts({ views: 30 }), at: late }), schedule)
        expect(yield* claim(DateTime.add(published, { days: 31 }))).toEqual([])
      }))

    it.effect("a sync that finds the same numbers moves synced_at and adds no point to the history", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const store = yield* MetricsStore
        const project = newProject()
        const published = base(7)
        const input = publishedPost(project.id, [{ platform: "x", publishedAt: published }])
        yield* posts.create(input)
        const id = input.record.deliveries[0]!.id
        const sync = (at: DateTime.Utc, reported: ReportedCounts) =>
          Effect.gen(function*() {
            const claimed = (yield* store.claimDue({ now: at, limit: 1000, leaseMillis: 60_000, worker: "w1", schedule }))
              .filter((c) => c.deliveryId === id)
            expect(claimed).toHaveLength(1)
            expect(yield* store.settle(id, "w1", SyncOutcome.Reported({ counts: reported, at }), schedule)).toBe(true)
          })
        const first = DateTime.add(published, { minutes: 15 })
        const second = DateTime.add(first, { hours: 6 })
        const third = DateTime.add(second, { hours: 6 })
        const fourth = DateTime.add(third, { hours: 6 })
        yield* sync(first, counts({ views: 10, likes: 2 }))
        yield* sync(second, counts({ views: 10, likes: 2 }))
        yield* sync(third, counts({ views: 12, likes: 2 }))
        yield* sync(fourth, counts({ views: 12, likes: 2 }))
        const history = yield* store.history(id)
        expect(history.map((snapshot) => [DateTime.formatIso(snapshot.takenAt), snapshot.counts.views])).toEqual([
          [DateTime.formatIso(first), 10],
          [DateTime.formatIso(third), 12]
        ])
        const [row] = yield* store.ofPost(project.id, input.record.post.id)
        expect(row).toMatchObject({ views: 12, synced_at: DateTime.formatIso(fourth) })
      }))

    it.effect("two workers claiming the same due set take each delivery exactly once", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const store = yield* MetricsStore
        const project = newProject()
        const published = base(2)
        const inputs = Array.from({ length: 10 }, () =>
          publishedPost(project.id, [{ platform: "x", publishedAt: published }, { platform: "bluesky", publishedAt: published }]))
        yield* Effect.forEach(inputs, (input) => posts.create(input))
        const now = DateTime.add(published, { hours: 1 })
        const claim = (worker: string) => store.claimDue({ now, limit: 1000, leaseMillis: 60_000, worker, schedule })
        const [a, b] = yield* Effect.all([claim("a"), claim("b")], { concurrency: "unbounded" })
        const mine = (claimed: typeof a) => claimed.filter((c) => c.projectId === project.id).map((c) => c.deliveryId)
        const all = [...mine(a), ...mine(b)]
        expect(all).toHaveLength(20)
        expect(new Set(all).size).toBe(20)
        expect(mine(yield* claim("c"))).toEqual([])
        // A lease that lapsed (its worker died) is claimed again.
        expect(mine(yield* store.claimDue({ now: DateTime.add(now, { minutes: 2 }), limit: 1000, leaseMillis: 60_000, worker: "d", schedule }))).toHaveLength(20)
      }))

    it.effect("a paused platform is not claimed until its pause ends; an unreportable delivery is never claimed again", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const store = yield* MetricsStore
        const project = newProject()
        const published = base(3)
        const input = publishedPost(project.id, [{ platform: "threads", publishedAt: published }, { platform: "linkedin", publishedAt: published }])
        yield* posts.create(input)
        const [threads, linkedin] = input.record.deliveries.map((delivery) => delivery.id)
        const now = DateTime.add(published, { hours: 1 })
        yield* store.pausePlatform("threads", DateTime.add(now, { minutes: 10 }))
        const claim = (at: DateTime.Utc) =>
          Effect.map(store.claimDue({ now: at, limit: 1000, leaseMillis: 60_000, worker: "w", schedule }), (claims) =>
            claims.filter((c) => c.projectId === project.id).map((c) => c.deliveryId))
        expect(yield* claim(now)).toEqual([linkedin])
        yield* store.settle(linkedin!, "w", SyncOutcome.Unreportable({ reason: "expired", detail: "too old", at: now }), schedule)
        expect(yield* claim(DateTime.add(now, { minutes: 11 }))).toEqual([threads])
        // threads' lease lapsed unsettled, so it is due again; linkedin never is.
        expect(yield* claim(DateTime.add(now, { days: 3 }))).toEqual([threads])
        const rows = yield* store.ofPost(project.id, input.record.post.id)
        expect(rows.map((row) => [row.platform, row.unreportable, row.views])).toEqual([["linkedin", "expired", null]])
      }))

    it.effect("insights, top posts and best times over what the syncs wrote, per the contract's rules", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const store = yield* MetricsStore
        const project = newProject()
        const now = base(4)
        // Tuesday 2030-... whatever weekday: slots are read back from the publishing times below.
        const atA = DateTime.subtract(now, { days: 2, hours: 3 })
        const atB = DateTime.subtract(now, { days: 1 })
        const a = publishedPost(project.id, [{ platform: "x", publishedAt: atA }, { platform: "instagram", placement: "stories", publishedAt: atA }])
        const b = publishedPost(project.id, [{ platform: "facebook", placement: "reels", publishedAt: atB }])
        const c = publishedPost(project.id, [{ platform: "x", publishedAt: DateTime.subtract(now, { hours: 10 }) }])
        const d = publishedPost(project.id, [{ platform: "x", status: "taken_down", publishedAt: DateTime.subtract(now, { hours: 9 }) }])
        const old = publishedPost(project.id, [{ platform: "x", publishedAt: DateTime.subtract(now, { days: 40 }) }])
        for (const input of [a, b, c, d, old]) yield* posts.create(input)
        const claims = yield* store.claimDue({ now: DateTime.subtract(now, { hours: 1 }), limit: 1000, leaseMillis: 60_000, worker: "w", schedule })
        const ours = new Set(claims.filter((claim) => claim.projectId === project.id).map((claim) => claim.deliveryId))
        const [xA, storyA] = a.record.deliveries.map((delivery) => delivery.id)
        const [fbB] = b.record.deliveries.map((delivery) => delivery.id)
        // c is claimed too and left awaiting (its lease lapses); the old one is past the schedule.
        expect(ours).toEqual(new Set([xA, storyA, fbB, c.record.deliveries[0]!.id]))
        const syncedAt = DateTime.subtract(now, { hours: 1 })
        yield* store.settle(xA!, "w", SyncOutcome.Reported({ counts: counts({ views: 100, likes: 10, comments: 2, shares: 1 }), at: syncedAt }), schedule)
        yield* store.settle(storyA!, "w", SyncOutcome.Unreportable({ reason: "unsupported", detail: "stories", at: syncedAt }), schedule)
        yield* store.settle(fbB!, "w", SyncOutcome.Reported({ counts: counts({ views: 50, likes: 5, comments: 0, shares: 0, reach: 40 }), at: syncedAt }), schedule)

        const window = { since: DateTime.subtract(now, { days: 30 }), platform: null, format: null }
        expect(yield* store.insights(project.id, window)).toEqual({
          posts: 4,
          deliveries: 5,
          totals: { views: 150, likes: 15, comments: 2, shares: 1, reach: 40, saves: 0, engagement: 18 },
          by_platform: {
            facebook: { posts: 1, deliveries: 1, with_metrics: 1, totals: { views: 50, likes: 5, comments: 0, shares: 0, reach: 40, saves: 0, engagement: 5 } },
            instagram: { posts: 1, deliveries: 1, with_metrics: 0, totals: { views: 0, likes: 0, comments: 0, shares: 0, reach: 0, saves: 0, engagement: 0 } },
            x: { posts: 3, deliveries: 3, with_metrics: 1, totals: { views: 100, likes: 10, comments: 2, shares: 1, reach: 0, saves: 0, engagement: 13 } }
          },
          coverage: { deliveries: 5, with_metrics: 2, unreportable: 2, awaiting: 1, unsupported: 1, ever_delivered: 6 }
        })
        const stories = yield* store.insights(project.id, { ...window, format: "story" })
        expect(stories.totals).toEqual({ views: 0, likes: 0, comments: 0, shares: 0, reach: 0, saves: 0, engagement: 0 })
        expect(stories.coverage).toEqual({ deliveries: 1, with_metrics: 0, unreportable: 1, awaiting: 0, unsupported: 1, ever_delivered: 6 })
        const empty = yield* store.insights(project.id, { ...window, platform: "pinterest" })
        expect(empty.coverage).toEqual({ deliveries: 0, with_metrics: 0, unreportable: 0, awaiting: 0, unsupported: 0, ever_delivered: 6 })

        const top = yield* store.topPosts(project.id, { ...window, metric: "engagement", limit: 10 })
        expect(top.map((row) => [row.post_id, row.value])).toEqual([
          [a.record.post.id, 13],
          [b.record.post.id, 5],
          [d.record.post.id, null],
          [c.record.post.id, null]
        ])
        expect(top[0]).toMatchObject({ platforms: ["instagram", "x"], deliveries: 2, published_at: DateTime.formatIso(atA) })
        const byReach = yield* store.topPosts(project.id, { ...window, metric: "reach", limit: 1 })
        expect(byReach.map((row) => [row.post_id, row.value])).toEqual([[b.record.post.id, 40]])

        const best = bestTimesOfCells(yield* store.bestTimes(project.id, { ...window, account: null }))
        const slotOf = (at: DateTime.Utc) => {
          const parts = DateTime.toParts(at)
          return { weekday: ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][parts.weekDay], hour_utc: parts.hours }
        }
        expect(best).toEqual({
          signal: "thin",
          slots: [{ ...slotOf(atA), avg_engagement: 13, samples: 1 }, { ...slotOf(atB), avg_engagement: 5, samples: 1 }]
        })
        expect(yield* store.bestTimes(project.id, { ...window, format: "story", account: null })).toEqual([])

        const rows = yield* store.ofPost(project.id, a.record.post.id)
        expect(rows.map((row) => [row.platform, row.format, row.engagement, row.unreportable])).toEqual([
          ["x", "feed", 13, null],
          ["instagram", "story", null, "unsupported"]
        ])
        expect(yield* store.ofPost(project.id, c.record.post.id)).toEqual([])
        // Another project sees none of it.
        expect(yield* store.ofPost(newProject().id, a.record.post.id)).toEqual([])
      }))

    it.effect("the roll-ups answer as the rules over random deliveries, syncs, windows and filters (property)", () =>
      Effect.gen(function*() {
        const posts = yield* PostStore
        const store = yield* MetricsStore
        const seed = Number(process.env.HERALD_ANALYTICS_SEED ?? 22)
        for (const [run, scenario] of fc.sample(scenarios, { numRuns: runs, seed }).entries()) {
          const now = DateTime.add(base(10), { days: run * 60 })
          const project = newProject()
          const tracked = new Map<string, TrackedDelivery>()
          const inputs = scenario.posts.map((post) => {
            const at = DateTime.subtract(now, { minutes: post.minutesAgo })
            return publishedPost(project.id, post.deliveries.map((delivery) => ({
              platform: delivery.platform,
              ...(delivery.placement === null ? {} : { placement: delivery.placement }),
              ...(delivery.takenDown ? { status: "taken_down" as const } : {}),
              publishedAt: DateTime.add(at, { minutes: delivery.minutesLater })
            })))
          })
          yield* Effect.forEach(inputs, (input) => posts.create(input))
          inputs.forEach((input, p) =>
            input.record.deliveries.forEach((delivery, d) => {
              const spec = scenario.posts[p]!.deliveries[d]!
              tracked.set(delivery.id, {
                deliveryId: delivery.id,
                postId: delivery.postId,
                projectId: project.id,
                accountId: delivery.accountId,
                platform: delivery.platform,
                username: delivery.username,
                // A post has one placement per platform: the last of its deliveries' on that platform (publishedPost).
                format: formatOfPlacement(input.record.post.platformConfigurations[delivery.platform]?.placement),
                publishedAt: delivery.attempts[0]!.finishedAt!,
                url: delivery.url,
                latest: null,
                unreportable: spec.takenDown ? { reason: "deleted", detail: "", at: delivery.updatedAt } : null
              })
            })
          )
          // Two rounds of syncs: each delivery reported, judged unreportable, or left awaiting; a second report replaces the first.
          const outcomes = scenario.posts.flatMap((post) => post.deliveries.map((delivery) => delivery.syncs))
          const ids = inputs.flatMap((input) => input.record.deliveries.map((delivery) => delivery.id))
          for (const round of [0, 1]) {
            const at = DateTime.add(now, { hours: round * 7 })
            const claimed = yield* store.claimDue({ now: at, limit: 10_000, leaseMillis: 1000, worker: `p${run}`, schedule: propertySchedule })
            const ours = new Set(claimed.filter((claim) => claim.projectId === project.id).map((claim) => claim.deliveryId as string))
            // Settled concurrently, as several workers would: deliveries of one post and one hour at once.
            yield* Effect.forEach(ids.entries(), ([index, id]) => {
              const outcome = outcomes[index]![round]
              if (!ours.has(id) || outcome === undefined) return Effect.void
              const before = tracked.get(id)!
              if (outcome._tag === "report") {
                tracked.set(id, { ...before, latest: { counts: outcome.counts, takenAt: at } })
                return store.settle(id, `p${run}`, SyncOutcome.Reported({ counts: outcome.counts, at }), propertySchedule)
              }
              tracked.set(id, { ...before, unreportable: { reason: outcome.reason, detail: "gone", at } })
              return store.settle(id, `p${run}`, SyncOutcome.Unreportable({ reason: outcome.reason, detail: "gone", at }), propertySchedule)
            }, { concurrency: 8, discard: true })
          }
          // A removed post takes its deliveries' numbers with it.
          const removed = new Set<string>()
          for (const [index, input] of inputs.entries()) {
            if (!scenario.posts[index]!.removed) continue
            yield* posts.commit(PostChange.Remove({ expectedVersion: 1, postId: input.record.post.id }))
            removed.add(input.record.post.id)
          }
          const all = [...tracked.values()].filter((delivery) => !removed.has(delivery.postId))
          for (const query of scenario.queries) {
            const filter = { since: DateTime.subtract(now, { minutes: query.minutesBack }), platform: query.platform, format: query.format }
            const label = `seed ${seed} run ${run} ${JSON.stringify(query)}`
            expect(yield* store.insights(project.id, filter), label).toEqual(insightsOf(all, filter))
            const top = { ...filter, metric: query.metric, limit: query.limit }
            expect(yield* store.topPosts(project.id, top), label).toEqual(topPostsOf(all, top))
            const account = query.account === null ? null : all[query.account % Math.max(all.length, 1)]?.accountId ?? null
            const best: BestTimesFilter = { ...filter, account }
            expect(bestTimesOfCells(yield* store.bestTimes(project.id, best)), label).toEqual(bestTimesOfCells(bestTimeCellsOf(all, best)))
          }
        }
      }), { timeout: 120_000 })
  })
}
