/**
 * Engagement from app.bsky.feed.getPosts: the AppView's counts on each postView, read through the
 * account's PDS, which proxies app.bsky.* queries to its AppView. Bluesky reports no views, reach,
 * clicks or plays (docs/networks/bluesky.md has the table).
 */
import { MetricsReading, type MetricsSource, PlatformCallFailed, type PostMetrics } from "@herald/core"
import { type Context, Effect, Schema } from "effect"
import { readFailed } from "./BlueskyErrors.js"
import { type Needs, withSession } from "./Session.js"
import { query, send } from "./Xrpc.js"

const Count = Schema.optional(Schema.NonNegativeInt)

/** The counts of app.bsky.feed.defs#postView (each optional in the lexicon). */
export const PostView = Schema.Struct({
  uri: Schema.String,
  likeCount: Count,
  repostCount: Count,
  replyCount: Count,
  quoteCount: Count,
  bookmarkCount: Count
})
export type PostView = typeof PostView.Type

const Posts = Schema.Struct({ posts: Schema.Array(PostView) })

/** A count the view leaves out is one the AppView does not report: null, never zero. */
const count = (value: number | undefined): number | null => value ?? null

/** A postView's counts under the contract's names. Shares are reposts plus quotes. */
export const metricsOf = (view: PostView): PostMetrics => ({
  views: null,
  reach: null,
  likes: count(view.likeCount),
  comments: count(view.replyCount),
  shares: view.repostCount === undefined && view.quoteCount === undefined ? null : (view.repostCount ?? 0) + (view.quoteCount ?? 0),
  saves: count(view.bookmarkCount),
  clicks: null,
  videoViews: null
})

const unreadable = (reason: string) =>
  new PlatformCallFailed({ error: { category: "auth_expired", code: "InvalidToken", message: reason }, retryAfterMs: null })

export const blueskyMetrics = (apiBaseUrl: string, context: Context.Context<Needs>): MetricsSource => ({
  fetch: ({ account, platformPostId }) =>
    withSession(
      account,
      (session) =>
        send({
          kind: "read",
          request: query(apiBaseUrl, "app.bsky.feed.getPosts", { uris: [platformPostId] }, session.accessJwt),
          reply: Posts
        }),
      (failed) => typeof failed === "string" ? unreadable(failed) : failed
    ).pipe(
      Effect.map((reply) => {
        const view = reply.posts.find((post) => post.uri === platformPostId)
        // getPosts leaves out posts that no longer exist rather than failing.
        return view === undefined
          ? MetricsReading.Unreportable({ reason: "deleted", detail: `${platformPostId} is not on Bluesky any more` })
          : MetricsReading.Reported({ metrics: metricsOf(view) })
      }),
      Effect.catchTags({ XrpcRefused: (failure) => Effect.fail(readFailed(failure)), XrpcNoAnswer: (failure) => Effect.fail(readFailed(failure)) }),
      Effect.provide(context)
    )
})
