/**
 * A pin's engagement from GET /v5/pins/{pin_id}/analytics (the last 90 days Pinterest reports,
 * lifetime counts where it gives them). Pinterest's names against Herald's
 * (docs/networks/pinterest.md): IMPRESSION → views, TOTAL_REACTIONS → likes, TOTAL_COMMENTS →
 * comments, SAVE → saves, PIN_CLICK + OUTBOUND_CLICK → clicks; Pinterest reports no reach or
 * shares (null, never zero). A delivery pinned to several boards is measured on its first pin.
 */
import { MetricsReading, type MetricsSource, type PostMetrics } from "@herald/core"
import { Clock, type Context, Effect, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { api, sendJson } from "./PinterestApi.js"
import { type Needs, withToken } from "./PinterestToken.js"

const Counts = Schema.Record({ key: Schema.String, value: Schema.Number })
const Analytics = Schema.Record({
  key: Schema.String,
  value: Schema.Struct({ lifetime_metrics: Schema.optional(Counts), summary_metrics: Schema.optional(Counts) })
})

const metricTypes = ["IMPRESSION", "SAVE", "PIN_CLICK", "OUTBOUND_CLICK", "TOTAL_COMMENTS", "TOTAL_REACTIONS"]
/** Pinterest answers analytics for the last 90 days at most. */
const windowDays = 89

const none: PostMetrics = { views: null, reach: null, likes: null, comments: null, shares: null, saves: null, clicks: null, videoViews: null }

const day = (millis: number) => new Date(millis).toISOString().slice(0, 10)

export const pinterestMetrics = (client: PlatformClient, context: Context.Context<Needs>): MetricsSource => ({
  fetch: ({ account, platformPostId }) =>
    withToken(account, (token) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const query = new URLSearchParams({
          start_date: day(now - windowDays * 24 * 60 * 60 * 1000),
          end_date: day(now),
          metric_types: metricTypes.join(","),
          app_types: "ALL",
          split_field: "NO_SPLIT"
        })
        const reply = yield* sendJson(client.read, api("GET", `pins/${encodeURIComponent(platformPostId)}/analytics?${query}`, token.access_token), "read", Analytics)
        const all = reply["all"]
        if (all === undefined) return MetricsReading.Unreportable({ reason: "unsupported", detail: `Pinterest reports no analytics for pin ${platformPostId}` })
        const counts = { ...all.summary_metrics, ...all.lifetime_metrics }
        const count = (...names: ReadonlyArray<string>) => {
          const values = names.map((name) => counts[name]).filter((value): value is number => value !== undefined)
          return values.length === 0 ? null : Math.max(0, Math.round(values.reduce((sum, value) => sum + value, 0)))
        }
        return MetricsReading.Reported({
          metrics: {
            ...none,
            views: count("IMPRESSION"),
            likes: count("TOTAL_REACTIONS"),
            comments: count("TOTAL_COMMENTS"),
            saves: count("SAVE"),
            clicks: count("PIN_CLICK", "OUTBOUND_CLICK")
          }
        })
      }).pipe(
        Effect.catchIf(
          (failure) => failure._tag === "PlatformRefusal" && failure.error.category === "not_found",
          () => Effect.succeed(MetricsReading.Unreportable({ reason: "deleted", detail: `Pinterest holds no pin ${platformPostId}` }))
        )
      )).pipe(asRead, Effect.provide(context))
})
