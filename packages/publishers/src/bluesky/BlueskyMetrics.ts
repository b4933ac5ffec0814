/**
 * Engagement from app.bsky.feed.getPosts: the AppView's counts on each postView, read through the
 * account's PDS, which proxies app.bsky.* queries to its AppView. Bluesky reports no views, reach,
 * clicks or plays (docs/networks/bluesky.md has the table).
 */
import { MetricsReading, type MetricsSource, type PostMetrics } from "@herald/core"
import { type Context, Effect, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import type { Needs } from "./BlueskyPublisher.js"
import { withSession } from "./Session.js"
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

export const blueskyMetrics = (client: PlatformClient, context: Context.Context<Needs>): MetricsSource => ({
  fetch: ({ account, platformPostId }) =>
    asRead(withSession(account, (session) =>
      send(client, {
        kind: "read",
        request: query("app.bsky.feed.getPosts", { uris: [platformPostId] }, session.auth),
        reply: Posts
      }))).pipe(
        Effect.map((reply) => {
          const view = reply.posts.find((post) => post.uri === platformPostId)
          // getPosts leaves out posts that no longer exist rather than failing.
          return view === undefined
            ? MetricsReading.Unreportable({ reason: "deleted", detail: `${platformPostId} is not on Bluesky any more` })
            : MetricsReading.Reported({ metrics: metricsOf(view) })
        }),
        Effect.provide(context)
      )
})
