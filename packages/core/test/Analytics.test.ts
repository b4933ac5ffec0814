import { describe, expect, it } from "@effect/vitest"
import {
  AccountId,
  bestTimesOf,
  blendedSlots,
  type ContentFormat,
  DeliveryId,
  engagementOf,
  formatOfPlacement,
  insightsOf,
  platforms,
  PostId,
  ProjectId,
  ownWeight,
  rankingMetrics,
  type ReportedCounts,
  type SlotCell,
  slotsOfCells,
  topPostsOf,
  type TrackedDelivery
} from "@herald/core"
import { DateTime, FastCheck as fc } from "effect"

const now = DateTime.unsafeMake("2031-03-04T12:00:00.000Z")
const projectId = ProjectId.make("00000000-0000-4000-8000-000000000001")
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`

const count = fc.option(fc.nat({ max: 10_000 }), { nil: null })
const counts: fc.Arbitrary<ReportedCounts> = fc.record({ views: count, likes: count, comments: count, shares: count, reach: count, saves: count })
const format = fc.constantFrom<ContentFormat>("feed", "reel", "story")
const platform = fc.constantFrom(...platforms)

/** Deliveries of up to 12 posts over the last 400 days, in every state a sync can leave them. */
const deliveries: fc.Arbitrary<Array<TrackedDelivery>> = fc.array(
  fc.record({
    post: fc.nat({ max: 11 }),
    platform,
    format,
    minutesAgo: fc.nat({ max: 400 * 24 * 60 }),
    latest: fc.option(counts, { nil: null }),
    unreportable: fc.option(fc.constantFrom("deleted" as const, "expired" as const, "unsupported" as const), { nil: null })
  }),
  { maxLength: 60 }
).map((entries) =>
  entries.map((entry, index): TrackedDelivery => {
    const publishedAt = DateTime.subtract(now, { minutes: entry.minutesAgo })
    return {
      deliveryId: DeliveryId.make(uuid(1000 + index)),
      postId: PostId.make(uuid(entry.post + 1)),
      projectId,
      accountId: AccountId.make(uuid(500 + index)),
      platform: entry.platform,
      username: "acct",
      format: entry.format,
      publishedAt,
      url: null,
      latest: entry.latest === null ? null : { counts: entry.latest, takenAt: now },
      unreportable: entry.unreportable === null ? null : { reason: entry.unreportable, detail: "", at: now }
    }
  })
)

const filter = fc.record({
  sinceDays: fc.integer({ min: 1, max: 365 }),
  platform: fc.option(platform, { nil: null }),
  format: fc.option(format, { nil: null })
}).map((query) => ({ since: DateTime.subtract(now, { days: query.sinceDays }), platform: query.platform, format: query.format }))

const inWindow = (all: ReadonlyArray<TrackedDelivery>, f: { since: DateTime.Utc; platform: string | null; format: string | null }) =>
  all.filter((d) =>
    DateTime.greaterThanOrEqualTo(d.publishedAt, f.since) && (f.platform === null || d.platform === f.platform) &&
    (f.format === null || d.format === f.format)
  )

describe("analytics rules (properties)", () => {
  it("engagement is likes + comments + shares + saves over those reported, null when none is", () => {
    fc.assert(fc.property(counts, (c) => {
      const parts = [c.likes, c.comments, c.shares, c.saves]
      const expected = parts.every((part) => part === null) ? null : parts.reduce<number>((sum, part) => sum + (part ?? 0), 0)
      expect(engagementOf(c)).toBe(expected)
    }))
  })

  it("format maps placement: timeline → feed, reels → reel, stories → story, none → feed", () => {
    expect([formatOfPlacement("timeline"), formatOfPlacement("reels"), formatOfPlacement("stories"), formatOfPlacement(undefined)])
      .toEqual(["feed", "reel", "story", "feed"])
  })

  it("coverage: with_metrics + unreportable + awaiting = deliveries; unsupported within unreportable; ever_delivered ignores every filter", () => {
    fc.assert(fc.property(deliveries, filter, (all, f) => {
      const { coverage, deliveries: count, posts, by_platform } = insightsOf(all, f)
      const window = inWindow(all, f)
      expect(count).toBe(window.length)
      expect(coverage.deliveries).toBe(window.length)
      expect(coverage.with_metrics + coverage.unreportable + coverage.awaiting).toBe(window.length)
      expect(Math.min(coverage.with_metrics, coverage.unreportable, coverage.awaiting, coverage.unsupported)).toBeGreaterThanOrEqual(0)
      expect(coverage.unsupported).toBeLessThanOrEqual(coverage.unreportable)
      expect(coverage.ever_delivered).toBe(all.length)
      expect(posts).toBe(new Set(window.map((d) => d.postId)).size)
      expect(Object.values(by_platform).reduce((sum, p) => sum + p.deliveries, 0)).toBe(window.length)
      // A delivery never synced and never judged is awaiting (unless it is a story).
      expect(coverage.awaiting).toBe(window.filter((d) => d.format !== "story" && d.latest === null && d.unreportable === null).length)
    }))
  })

  it("format=story returns zero totals however many stories went out, all of them unsupported", () => {
    fc.assert(fc.property(deliveries, filter, (all, f) => {
      const stories = { ...f, format: "story" as const }
      const { coverage, totals } = insightsOf(all, stories)
      expect(Object.values(totals).every((total) => total === 0)).toBe(true)
      expect(coverage.unreportable).toBe(coverage.deliveries)
      expect(coverage.unsupported).toBe(coverage.deliveries)
      expect(coverage.with_metrics).toBe(0)
    }))
  })

  it("top posts: at most limit rows, one per post of the window, descending, nulls last, ties newest first", () => {
    fc.assert(fc.property(deliveries, filter, fc.constantFrom(...rankingMetrics), fc.integer({ min: 1, max: 50 }), (all, f, metric, limit) => {
      const rows = topPostsOf(all, { ...f, metric, limit })
      const postsInWindow = new Set(inWindow(all, f).map((d) => d.postId))
      expect(rows.length).toBe(Math.min(limit, postsInWindow.size))
      expect(new Set(rows.map((row) => row.post_id)).size).toBe(rows.length)
      for (let i = 1; i < rows.length; i++) {
        const [a, b] = [rows[i - 1]!, rows[i]!]
        if (a.value === null) expect(b.value).toBeNull()
        else if (b.value !== null) {
          expect(a.value).toBeGreaterThanOrEqual(b.value)
          if (a.value === b.value) expect(a.published_at >= b.published_at).toBe(true)
        }
        if (a.value === null && b.value === null) expect(a.published_at >= b.published_at).toBe(true)
      }
      for (const row of rows) {
        const values = inWindow(all, f).filter((d) => d.postId === row.post_id && d.format !== "story" && d.latest !== null).flatMap((d) => {
          const value = metric === "engagement" ? engagementOf(d.latest!.counts) : d.latest!.counts[metric]
          return value === null ? [] : [value]
        })
        expect(row.value).toBe(values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0))
      }
    }))
  })

  it("best times: slots with samples, best first; samples count posts; signal none/thin/ok exactly as the contract defines it", () => {
    fc.assert(fc.property(deliveries, filter, (all, f) => {
      const { signal, slots } = bestTimesOf(all, f)
      // The posts with engagement recorded, placed by their first such delivery (weekday by the JS calendar).
      const posts = new Map<string, { first: Date; engagement: number }>()
      for (const d of inWindow(all, f)) {
        if (d.format === "story" || d.latest === null) continue
        const engagement = engagementOf(d.latest.counts)
        if (engagement === null) continue
        const at = new Date(DateTime.toEpochMillis(d.publishedAt))
        const seen = posts.get(d.postId)
        posts.set(d.postId, seen === undefined ? { first: at, engagement } : { first: at < seen.first ? at : seen.first, engagement: seen.engagement + engagement })
      }
      const names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
      const cells = new Map<string, Array<number>>()
      for (const post of posts.values()) {
        const key = `${names[post.first.getUTCDay()]} ${post.first.getUTCHours()}`
        cells.set(key, [...(cells.get(key) ?? []), post.engagement])
      }
      expect(slots.reduce((sum, slot) => sum + slot.samples, 0)).toBe(posts.size)
      expect(new Map(slots.map((slot) => [`${slot.weekday} ${slot.hour_utc}`, slot.samples]))).toEqual(new Map([...cells].map(([key, values]) => [key, values.length])))
      for (const slot of slots) {
        const values = cells.get(`${slot.weekday} ${slot.hour_utc}`)!
        expect(slot.avg_engagement).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 2)
      }
      for (let i = 1; i < slots.length; i++) expect(slots[i - 1]!.avg_engagement).toBeGreaterThanOrEqual(slots[i]!.avg_engagement)
      const anyEngagement = [...posts.values()].some((post) => post.engagement > 0)
      expect(signal).toBe(!anyEngagement ? "none" : slots.every((slot) => slot.samples >= 3) ? "ok" : "thin")
    }))
  })
})

/** Cells of distinct weekday × hour, each with samples. */
const cellsArb: fc.Arbitrary<Array<SlotCell>> = fc.uniqueArray(
  fc.record({ weekday: fc.nat({ max: 6 }), hour: fc.nat({ max: 23 }), samples: fc.integer({ min: 1, max: 8 }), sum: fc.nat({ max: 5_000 }) }),
  { selector: (cell) => cell.weekday * 24 + cell.hour, maxLength: 30 }
)
const keyOf = (slot: { weekday: string; hour_utc: number }) => `${slot.weekday} ${slot.hour_utc}`

describe("best times per account: blended with the platform's prior (properties)", () => {
  it("the weight of the account's own data grows with its own samples, from 0 with none to 1 from three", () => {
    fc.assert(fc.property(fc.nat({ max: 20 }), fc.integer({ min: 1, max: 50 }), (own, prior) => {
      expect(ownWeight(own + 1, prior)).toBeGreaterThanOrEqual(ownWeight(own, prior))
      if (own < 3) expect(ownWeight(own + 1, prior)).toBeGreaterThan(ownWeight(own, prior))
      expect(ownWeight(own, prior)).toBe(own === 0 ? 0 : own >= 3 ? 1 : own / 3)
    }))
  })

  it("with no own data every slot is the platform prior's", () => {
    fc.assert(fc.property(cellsArb, (prior) => {
      const blended = blendedSlots([], prior)
      expect(blended.map(({ avg_engagement, hour_utc, samples, weekday }) => ({ weekday, hour_utc, avg_engagement, samples })))
        .toEqual(slotsOfCells(prior))
      expect(blended.every((slot) => slot.own_weight === 0 && slot.own_samples === 0)).toBe(true)
    }))
  })

  it("a slot with three or more own samples is the account's own; fewer blend toward the prior; the order is the contract's", () => {
    fc.assert(fc.property(cellsArb, cellsArb, (own, prior) => {
      const blended = new Map(blendedSlots(own, prior).map((slot) => [keyOf(slot), slot]))
      const ownSlots = new Map(slotsOfCells(own).map((slot) => [keyOf(slot), slot]))
      const priorSlots = new Map(slotsOfCells(prior).map((slot) => [keyOf(slot), slot]))
      expect(new Set(blended.keys())).toEqual(new Set([...ownSlots.keys(), ...priorSlots.keys()]))
      for (const [key, slot] of blended) {
        const mine = ownSlots.get(key)
        const theirs = priorSlots.get(key)
        expect(slot.own_samples).toBe(mine?.samples ?? 0)
        if (mine !== undefined && (mine.samples >= 3 || theirs === undefined)) {
          expect(slot).toMatchObject({ avg_engagement: mine.avg_engagement, samples: mine.samples, own_weight: 1 })
        } else {
          const weight = (mine?.samples ?? 0) / 3
          expect(slot.own_weight).toBe(Math.round(weight * 100) / 100)
          expect(slot.samples).toBe(theirs!.samples)
          // Between the two means (each to two decimals, so within a cent of them).
          const ends = [mine?.avg_engagement ?? theirs!.avg_engagement, theirs!.avg_engagement]
          expect(slot.avg_engagement).toBeGreaterThanOrEqual(Math.min(...ends) - 0.01)
          expect(slot.avg_engagement).toBeLessThanOrEqual(Math.max(...ends) + 0.01)
        }
      }
      const ordered = blendedSlots(own, prior)
      for (let i = 1; i < ordered.length; i++) expect(ordered[i - 1]!.avg_engagement).toBeGreaterThanOrEqual(ordered[i]!.avg_engagement)
    }))
  })
})
