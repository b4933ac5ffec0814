/**
 * What Herald reads through Ayrshare: a post's Instagram counts (POST /analytics/post), whether a
 * profile still links its Instagram account (GET /user, the probe), and, at connect time, who
 * that account is.
 */
import {
  type AggregatorKeys,
  ConnectionHealth,
  type ConnectionProbe,
  type KeyConnection,
  MetricsReading,
  type MetricsSource,
  PlatformCallFailed,
  type SocialAccount
} from "@herald/core"
import { type Context, Effect, Redacted } from "effect"
import { asRead, authorized, type PlatformClient } from "../kit/index.js"
import { Acknowledged, AnalyticsReply, ayrshare, type AyrshareKeys, keysOf, type Needs, send, UserReply } from "./AyrshareApi.js"

/** The profile's Instagram account as GET /user names it; undefined when the profile links none. */
const instagramOf = (user: typeof UserReply.Type) => {
  const named = user.displayNames.find((entry) => entry.platform === "instagram")
  return named?.username === undefined || !user.activeSocialAccounts.includes("instagram") ? undefined : named
}

export const ayrshareMetrics = (client: PlatformClient, context: Context.Context<Needs>): MetricsSource => ({
  fetch: ({ account, platformPostId }) =>
    authorized(account, (credentials) =>
      send(client.read, ayrshare("POST", "analytics/post", keysOf(credentials), { id: platformPostId, platforms: ["instagram"] }), AnalyticsReply)).pipe(
      Effect.map(({ instagram: { analytics } }) =>
        MetricsReading.Reported({
          metrics: {
            views: analytics.viewsCount ?? null,
            reach: analytics.reachCount ?? null,
            likes: analytics.likeCount ?? null,
            comments: analytics.commentsCount ?? null,
            shares: analytics.sharesCount ?? null,
            saves: analytics.savedCount ?? null,
            clicks: null,
            videoViews: null
          }
        })
      ),
      asRead,
      Effect.catchIf(
        (failed: PlatformCallFailed) => failed.error.category === "not_found",
        (failed) => Effect.succeed(MetricsReading.Unreportable({ reason: "deleted", detail: failed.error.message }))
      ),
      Effect.provide(context)
    )
})

const unlinked = (account: SocialAccount | null) =>
  ConnectionHealth.Refused({
    code: "instagram_unlinked",
    message: `the Ayrshare profile${account === null ? "" : ` of instagram:${account.username}`} no longer links an Instagram account; link it again on Ayrshare, then reconnect`
  })

export const ayrshareProbe = (client: PlatformClient, context: Context.Context<Needs>): ConnectionProbe => ({
  check: (account) =>
    authorized(account, (credentials) => send(client.read, ayrshare("GET", "user", keysOf(credentials)), UserReply)).pipe(
      Effect.map((user) =>
        instagramOf(user) === undefined
          ? unlinked(account)
          : ConnectionHealth.Alive({ expiresAt: null, granted: ["instagram"], needed: ["instagram"] })
      ),
      asRead,
      Effect.catchIf(
        (failed: PlatformCallFailed) => failed.error.category === "auth_expired",
        (failed) => Effect.succeed(ConnectionHealth.Refused({ code: failed.error.code, message: failed.error.message }))
      ),
      Effect.provide(context)
    )
})

const notLinked = (detail: string) =>
  new PlatformCallFailed({ error: { category: "permission_missing", code: "instagram_not_linked", message: detail }, retryAfterMs: null })

/**
 * Connecting with Ayrshare's keys: GET /user names the Instagram account the profile links. The
 * login variant (`handleLookup`) also proves the keys can look handles up (GET /brand/byUser on
 * the account's own handle), since that is what its people tags are confirmed with.
 */
export const ayrshareConnection = (
  client: PlatformClient,
  context: Context.Context<Needs>,
  route: "aggregator" | "aggregator_login"
): KeyConnection => ({
  platform: "instagram",
  route,
  connect: (given: AggregatorKeys) =>
    Effect.gen(function*() {
      const keys: AyrshareKeys = {
        api_key: Redacted.value(given.apiKey),
        ...(given.profileKey === null ? {} : { profile_key: Redacted.value(given.profileKey) })
      }
      const user = yield* send(client.read, ayrshare("GET", "user", keys), UserReply)
      const instagram = instagramOf(user)
      if (instagram?.username === undefined) {
        return yield* notLinked("this Ayrshare profile links no Instagram account; link one on Ayrshare first")
      }
      if (route === "aggregator_login") {
        yield* send(client.read, ayrshare("GET", `brand/byUser?platforms[0]=instagram&instagramUser=${encodeURIComponent(`@${instagram.username}`)}`, keys), Acknowledged).pipe(
          Effect.catchTag("PlatformRefusal", (refusal) =>
            Effect.fail(
              new PlatformCallFailed({
                error: {
                  category: "permission_missing",
                  code: "handle_lookup_unavailable",
                  message: `the aggregator_login route confirms people tags with Ayrshare's Brand API, which these keys cannot use (${refusal.error.message}); connect on route aggregator instead`
                },
                retryAfterMs: null
              })
            ))
        )
      }
      return {
        platformAccountId: instagram.id ?? instagram.username,
        username: instagram.username,
        credentials: { ...keys, ...(instagram.id === undefined ? {} : { instagram_id: instagram.id }) },
        expiresAt: null
      }
    }).pipe(asRead, Effect.provide(context))
})
