import { DateTime, Effect, Layer } from "effect"
import {
  sameCounts,
  bestTimeCellsOf,
  deliveryMetricsOf,
  formatOfPlacement,
  insightsOf,
  type MetricsSnapshot,
  publishedAtOf,
  topPostsOf,
  type TrackedDelivery
} from "../Analytics.js"
import type { DeliveryId } from "../Ids.js"
import type { ClaimedSync, SyncSchedule } from "../ports/MetricsStore.js"
import { MetricsStore } from "../ports/MetricsStore.js"
import type { Platform } from "../Platform.js"
import type { InMemoryData } from "./InMemoryStores.js"

interface SyncState {
  tracked: TrackedDelivery
  platformPostId: string | null
  snapshots: Array<MetricsSnapshot>
  /** Once begun (a first sync tried): the next sync, null for none. Before: due `firstAfter` past publishing. */
  nextAt: DateTime.Utc | null
  begun: boolean
  lease: { readonly worker: string; readonly expiresAt: DateTime.Utc } | null
}

const plus = (at: DateTime.Utc, duration: SyncSchedule["every"]) => DateTime.addDuration(at, duration)

/**
 * MetricsStore over the in-memory stores' posts: a delivery is taken in the first time it is seen
 * gone out (as the PostgreSQL store's trigger takes it in on its success), and marked deleted
 * once taken down.
 */
export const inMemoryMetricsStore = (data: InMemoryData): Layer.Layer<MetricsStore> =>
  Layer.sync(MetricsStore, () => {
    const states = new Map<string, SyncState>()
    const pauses = new Map<Platform, DateTime.Utc>()

    const refresh = () => {
      for (const { deliveries, post } of data.posts.values()) {
        for (const delivery of deliveries) {
          if (!delivery.wentOut) continue
          let state = states.get(delivery.id)
          if (state === undefined) {
            state = {
              tracked: {
                deliveryId: delivery.id,
                postId: delivery.postId,
                projectId: delivery.projectId,
                accountId: delivery.accountId,
                platform: delivery.platform,
                username: delivery.username,
                format: formatOfPlacement(post.platformConfigurations[delivery.platform]?.placement),
                publishedAt: publishedAtOf(delivery),
                url: delivery.url,
                latest: null,
                unreportable: null
              },
              platformPostId: delivery.platformPostId,
              snapshots: [],
              nextAt: null,
              begun: false,
              lease: null
            }
            states.set(delivery.id, state)
          }
          if (delivery.status === "taken_down" && state.tracked.unreportable === null) {
            state.tracked = { ...state.tracked, unreportable: { reason: "deleted", detail: "taken down through Herald", at: delivery.updatedAt } }
            state.nextAt = null
          }
        }
      }
      // A removed post takes its deliveries' metrics with it.
      const live = new Set([...data.posts.values()].flatMap((record) => record.deliveries.map((delivery) => delivery.id as string)))
      for (const id of states.keys()) if (!live.has(id)) states.delete(id)
    }

    const trackedOf = (projectId: string) => {
      refresh()
      return [...states.values()].filter((state) => state.tracked.projectId === projectId).map((state) => state.tracked)
    }

    const dueAt = (state: SyncState, schedule: SyncSchedule, now: DateTime.Utc): DateTime.Utc | null => {
      if (state.tracked.unreportable !== null) return null
      if (state.begun) return state.nextAt
      return withinSchedule(state, schedule, now) ? plus(state.tracked.publishedAt, schedule.firstAfter) : null
    }
    /** The schedule's end: nothing is fetched later than `lastAfter` past publishing. */
    const withinSchedule = (state: SyncState, schedule: SyncSchedule, at: DateTime.Utc) =>
      DateTime.lessThanOrEqualTo(at, plus(state.tracked.publishedAt, schedule.lastAfter))
    const nextWithin = (state: SyncState, schedule: SyncSchedule, at: DateTime.Utc) => withinSchedule(state, schedule, at) ? at : null

    return MetricsStore.of({
      claimDue: ({ leaseMillis, limit, now, schedule, worker }) =>
        Effect.sync(() => {
          refresh()
          const due = [...states.values()].flatMap((state) => {
            const at = dueAt(state, schedule, now)
            const paused = pauses.get(state.tracked.platform)
            const free = state.lease === null || DateTime.lessThanOrEqualTo(state.lease.expiresAt, now)
            return at !== null && free && DateTime.lessThanOrEqualTo(at, now) && (paused === undefined || DateTime.lessThanOrEqualTo(paused, now))
              ? [{ state, at }]
              : []
          }).sort((a, b) => DateTime.distance(b.at, a.at) || (a.state.tracked.deliveryId < b.state.tracked.deliveryId ? -1 : 1))
          return due.slice(0, limit).map(({ state }): ClaimedSync => {
            state.lease = { worker, expiresAt: DateTime.add(now, { millis: leaseMillis }) }
            const { accountId, deliveryId, platform, projectId, publishedAt } = state.tracked
            return { deliveryId, projectId, accountId, platform, platformPostId: state.platformPostId, publishedAt }
          })
        }),
      settle: (deliveryId, worker, outcome, schedule) =>
        Effect.sync(() => {
          const state = states.get(deliveryId)
          if (state === undefined || state.lease?.worker !== worker) return false
          state.lease = null
          switch (outcome._tag) {
            case "Reported": {
              const snapshot = { counts: outcome.counts, takenAt: outcome.at }
              const last = state.snapshots.at(-1)
              if (last === undefined || !sameCounts(last.counts, outcome.counts)) state.snapshots.push(snapshot)
              state.tracked = { ...state.tracked, latest: snapshot }
              state.begun = true
              state.nextAt = nextWithin(state, schedule, plus(outcome.at, schedule.every))
              break
            }
            case "Unreportable":
              state.tracked = { ...state.tracked, unreportable: { reason: outcome.reason, detail: outcome.detail, at: outcome.at } }
              state.begun = true
              state.nextAt = null
              break
            case "Later":
              state.begun = true
              state.nextAt = nextWithin(state, schedule, outcome.retryAt)
          }
          return true
        }),
      pausePlatform: (platform, until) =>
        Effect.sync(() => {
          const current = pauses.get(platform)
          if (current === undefined || DateTime.lessThan(current, until)) pauses.set(platform, until)
        }),
      history: (deliveryId: DeliveryId) => Effect.sync(() => [...(states.get(deliveryId)?.snapshots ?? [])]),
      ofPost: (projectId, postId) =>
        Effect.sync(() =>
          trackedOf(projectId)
            .filter((tracked) => tracked.postId === postId)
            .flatMap((tracked) => {
              const row = deliveryMetricsOf(tracked)
              return row === null ? [] : [row]
            })
        ),
      insights: (projectId, filter) => Effect.sync(() => insightsOf(trackedOf(projectId), filter)),
      topPosts: (projectId, query) => Effect.sync(() => topPostsOf(trackedOf(projectId), query)),
      bestTimes: (projectId, filter) => Effect.sync(() => bestTimeCellsOf(trackedOf(projectId), filter))
    })
  })
