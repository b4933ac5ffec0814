/**
 * A video's engagement: views, likes and comments from the Data API's statistics (videos.list
 * part=statistics, one quota unit), and shares from the Analytics API's report for the video when
 * the grant holds yt-analytics.readonly (it lags a day or two; without it shares stay null).
 * YouTube reports no reach, saves or clicks through its APIs (null, never zero). A video YouTube no
 * longer lists, or that it rejected or failed to process, reports nothing for good.
 */
import { HttpClientRequest } from "@effect/platform"
import { MetricsReading, type MetricsSource, type PostMetrics } from "@herald/core"
import { type Context, DateTime, Effect, Option, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { sendJson } from "./GoogleApi.js"
import { type QuotaSettings, spend } from "./Quota.js"
import { analyticsScope } from "./YoutubeOAuth.js"
import { type Needs, type Token, withToken } from "./YoutubeToken.js"

const Count = Schema.optional(Schema.NumberFromString)

const Videos = Schema.Struct({
  items: Schema.optionalWith(
    Schema.Array(Schema.Struct({
      id: Schema.String,
      snippet: Schema.optional(Schema.Struct({ publishedAt: Schema.optional(Schema.String) })),
      status: Schema.optional(Schema.Struct({ uploadStatus: Schema.optional(Schema.String) })),
      statistics: Schema.optional(Schema.Struct({ viewCount: Count, likeCount: Count, commentCount: Count }))
    })),
    { default: () => [] }
  )
})

const Report = Schema.Struct({
  columnHeaders: Schema.Array(Schema.Struct({ name: Schema.String })),
  rows: Schema.optionalWith(Schema.Array(Schema.Array(Schema.Number)), { default: () => [] })
})

const none: PostMetrics = { views: null, reach: null, likes: null, comments: null, shares: null, saves: null, clicks: null, videoViews: null }

const count = (value: number | undefined) => value === undefined ? null : Math.max(0, Math.round(value))

export const youtubeMetrics = (
  clients: { readonly api: PlatformClient; readonly analytics: PlatformClient },
  quota: QuotaSettings,
  context: Context.Context<Needs>
): MetricsSource => {
  /** The video's shares since it was published, or none when the Analytics API cannot say. */
  const shares = (token: Token, videoId: string, publishedAt: string | undefined) =>
    Effect.gen(function*() {
      if (!token.scopes.includes(analyticsScope)) return Option.none<number>()
      const today = DateTime.formatIsoDate(yield* DateTime.now)
      const since = publishedAt === undefined ? today : publishedAt.slice(0, 10)
      const query = new URLSearchParams({ ids: "channel==MINE", metrics: "shares", filters: `video==${videoId}`, startDate: since, endDate: today })
      const report = yield* sendJson(
        clients.analytics.read,
        HttpClientRequest.get(`/v2/reports?${query}`).pipe(HttpClientRequest.bearerToken(token.accessToken)),
        "read",
        Report
      )
      const column = report.columnHeaders.findIndex((header) => header.name === "shares")
      return Option.fromNullable(column < 0 ? undefined : report.rows[0]?.[column] ?? 0)
    }).pipe(Effect.orElseSucceed(() => Option.none<number>()))

  return {
    fetch: ({ account, platformPostId }) =>
      withToken(account, (token) =>
        Effect.gen(function*() {
          yield* spend(quota, 1, "a statistics read")
          const reply = yield* sendJson(
            clients.api.read,
            HttpClientRequest.get(`/youtube/v3/videos?part=statistics,status,snippet&id=${encodeURIComponent(platformPostId)}`).pipe(
              HttpClientRequest.bearerToken(token.accessToken)
            ),
            "read",
            Videos
          )
          const video = reply.items[0]
          if (video === undefined) return MetricsReading.Unreportable({ reason: "deleted", detail: `YouTube lists no video ${platformPostId}` })
          const state = video.status?.uploadStatus
          if (state === "rejected" || state === "failed" || state === "deleted") {
            return MetricsReading.Unreportable({ reason: "deleted", detail: `YouTube ${state} video ${platformPostId}` })
          }
          const shared = yield* shares(token, platformPostId, video.snippet?.publishedAt)
          return MetricsReading.Reported({
            metrics: {
              ...none,
              views: count(video.statistics?.viewCount),
              likes: count(video.statistics?.likeCount),
              comments: count(video.statistics?.commentCount),
              shares: Option.getOrNull(Option.map(shared, (value) => Math.max(0, Math.round(value))))
            }
          })
        })).pipe(asRead, Effect.provide(context))
  }
}
