/**
 * A LinkedIn post's engagement. Organisation posts: organizationalEntityShareStatistics (one call,
 * every count). Member posts: memberCreatorPostAnalytics, one call per metric, which needs the
 * r_member_postAnalytics scope; a connection without it reports nothing (unsupported), never zeros.
 * docs/networks/linkedin.md has the table of LinkedIn's names against Herald's.
 */
import { MetricsReading, type MetricsSource, type PostMetrics } from "@herald/core"
import { type Context, Effect, Schema } from "effect"
import { asRead, type PlatformClient } from "../kit/index.js"
import { rest, sendJson } from "./Rest.js"
import { isOrganization, type Needs, type Token, withToken } from "./Token.js"

const ShareStatistics = Schema.Struct({
  elements: Schema.Array(Schema.Struct({
    totalShareStatistics: Schema.Struct({
      impressionCount: Schema.optional(Schema.Number),
      uniqueImpressionsCount: Schema.optional(Schema.Number),
      likeCount: Schema.optional(Schema.Number),
      commentCount: Schema.optional(Schema.Number),
      shareCount: Schema.optional(Schema.Number),
      clickCount: Schema.optional(Schema.Number)
    })
  }))
})

const MemberAnalytics = Schema.Struct({ elements: Schema.Array(Schema.Struct({ count: Schema.Number })) })

/** memberCreatorPostAnalytics' queryType for each metric it reports. */
const memberMetrics = {
  views: "IMPRESSION",
  reach: "MEMBERS_REACHED",
  likes: "REACTION",
  comments: "COMMENT",
  shares: "RESHARE"
} as const

const none: PostMetrics = { views: null, reach: null, likes: null, comments: null, shares: null, saves: null, clicks: null, videoViews: null }

const count = (value: number | undefined) => value === undefined ? null : Math.max(0, Math.round(value))

/** A share is named `shares=List(...)` / `(share:...)`, a ugcPost `ugcPosts=List(...)` / `(ugc:...)`. */
const isUgcPost = (urn: string) => urn.startsWith("urn:li:ugcPost:")

export const linkedinMetrics = (client: PlatformClient, context: Context.Context<Needs>): MetricsSource => {
  const organization = (token: Token, urn: string) =>
    Effect.map(
      sendJson(
        client.read,
        rest(
          "GET",
          `/rest/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${encodeURIComponent(token.author)}&${
            isUgcPost(urn) ? "ugcPosts" : "shares"
          }=List(${encodeURIComponent(urn)})`,
          token.accessToken
        ),
        "read",
        ShareStatistics
      ),
      (reply): MetricsReading => {
        const totals = reply.elements[0]?.totalShareStatistics
        if (totals === undefined) return MetricsReading.Unreportable({ reason: "deleted", detail: `LinkedIn reports no statistics for ${urn}` })
        return MetricsReading.Reported({
          metrics: {
            ...none,
            views: count(totals.impressionCount),
            reach: count(totals.uniqueImpressionsCount),
            likes: count(totals.likeCount),
            comments: count(totals.commentCount),
            shares: count(totals.shareCount),
            clicks: count(totals.clickCount)
          }
        })
      }
    )

  const member = (token: Token, urn: string) =>
    Effect.forEach(Object.entries(memberMetrics), ([metric, queryType]) =>
      Effect.map(
        sendJson(
          client.read,
          rest(
            "GET",
            `/rest/memberCreatorPostAnalytics?q=entity&entity=(${isUgcPost(urn) ? "ugc" : "share"}:${encodeURIComponent(urn)})&queryType=${queryType}&aggregation=TOTAL`,
            token.accessToken
          ),
          "read",
          MemberAnalytics
        ),
        (reply) => [metric, count(reply.elements[0]?.count)] as const
      )).pipe(
        Effect.map((counts): MetricsReading => MetricsReading.Reported({ metrics: { ...none, ...Object.fromEntries(counts) } })),
        Effect.catchIf(
          (failure) => failure._tag === "PlatformRefusal" && failure.error.category === "permission_missing",
          () =>
            Effect.succeed(MetricsReading.Unreportable({
              reason: "unsupported",
              detail: "LinkedIn reports a member's post analytics only to connections granted r_member_postAnalytics"
            }))
        )
      )

  return {
    fetch: ({ account, platformPostId }) =>
      withToken(account, (token) => isOrganization(token.author) ? organization(token, platformPostId) : member(token, platformPostId)).pipe(
        asRead,
        Effect.provide(context)
      )
  }
}
