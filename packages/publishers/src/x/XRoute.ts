import { type HttpClient, HttpClientRequest } from "@effect/platform"
import {
  AccountTokens,
  ConnectionHealth,
  type ConnectionProbe,
  MediaStorage,
  MetricsReading,
  type MetricsSource,
  type OAuthProvider,
  type PlatformCallFailed,
  type PostMetrics,
  type RouteAdapters
} from "@herald/core"
import { Context, DateTime, Effect, Option } from "effect"
import { asRead, authorized, type DirectRoute, type PlatformClient, platformClient, type PlatformEndpoints } from "../kit/index.js"
import { exchange, withToken } from "./XCall.js"
import { xOAuth, xScopes } from "./XOAuth.js"
import { makeXPublisher } from "./XPublisher.js"
import { type Post, PostLookup, UsersMe } from "./XWire.js"


const count = (value: number | undefined) => value === undefined ? null : Math.max(0, Math.round(value))
const sum = (...values: ReadonlyArray<number | undefined>) =>
  values.every((value) => value === undefined) ? null : values.reduce<number>((total, value) => total + (value ?? 0), 0)

/** X's numbers on the contract's names (docs/networks/x.md, "Metrics"). */
export const xMetrics = (post: Post): PostMetrics => {
  const open = post.public_metrics ?? {}
  const owner = post.non_public_metrics ?? {}
  return {
    views: count(owner.impression_count ?? open.impression_count),
    reach: null,
    likes: count(open.like_count),
    comments: count(open.reply_count),
    shares: count(sum(open.repost_count ?? open.retweet_count, open.quote_count) ?? undefined),
    saves: count(open.bookmark_count),
    clicks: count(owner.url_link_clicks),
    videoViews: null
  }
}

const makeMetrics = (client: PlatformClient, tokens: Context.Context<AccountTokens>): MetricsSource => {
  const lookup = (fields: string) => (credentials: Parameters<typeof withToken>[0], id: string) =>
    exchange(
      client.read,
      HttpClientRequest.get(`/2/tweets/${encodeURIComponent(id)}`).pipe(
        HttpClientRequest.setUrlParam("post.fields", fields),
        withToken(credentials),
        HttpClientRequest.acceptJson
      ),
      PostLookup
    )
  const withOwnerMetrics = lookup("public_metrics,non_public_metrics")
  const publicOnly = lookup("public_metrics")
  return {
    fetch: ({ account, platformPostId }) =>
      asRead(authorized(account, (credentials) =>
        Effect.gen(function*() {
          // Owner metrics exist for 30 days only: past that X answers with errors[], and the public ones remain.
          const first = yield* withOwnerMetrics(credentials, platformPostId)
          const reply = first.data === undefined && !gone(first) ? yield* publicOnly(credentials, platformPostId) : first
          return reply.data !== undefined
            ? MetricsReading.Reported({ metrics: xMetrics(reply.data) })
            : MetricsReading.Unreportable({ reason: "deleted", detail: `x holds no post ${platformPostId}` })
        }))).pipe(Effect.provide(tokens))
  }
}

const gone = (reply: typeof PostLookup.Type) =>
  (reply.errors ?? []).some((problem) => problem.type?.endsWith("/resource-not-found") === true)

const makeProbe = (client: PlatformClient, tokens: Context.Context<AccountTokens>): ConnectionProbe => ({
  check: (account) =>
    Effect.gen(function*() {
      const credentials = yield* authorized(account, (credentials) =>
        Effect.as(
          exchange(client.read, HttpClientRequest.get("/2/users/me").pipe(withToken(credentials), HttpClientRequest.acceptJson), UsersMe),
          credentials
        ))
      const expires = typeof credentials.expires_at === "string" ? DateTime.make(credentials.expires_at) : Option.none()
      return ConnectionHealth.Alive({
        expiresAt: Option.getOrNull(Option.map(expires, DateTime.toUtc)),
        granted: typeof credentials.scope === "string" ? credentials.scope.split(" ").filter((scope) => scope !== "") : [],
        needed: xScopes
      })
    }).pipe(
      asRead,
      Effect.catchIf(
        (failure: PlatformCallFailed) => failure.error.category === "auth_expired",
        (failure) => Effect.succeed(ConnectionHealth.Refused({ code: failure.error.code, message: failure.error.message }))
      ),
      Effect.provide(tokens)
    )
})

/**
 * X's direct route: its adapters (Publisher, MetricsSource, ConnectionProbe) and its OAuth 2
 * provider, over the HttpClient in context pointed at `endpoints`.
 */
export const xRoute = (
  endpoints: PlatformEndpoints
): Effect.Effect<{ readonly adapters: RouteAdapters; readonly oauth: OAuthProvider }, never, HttpClient.HttpClient | AccountTokens | MediaStorage> =>
  Effect.gen(function*() {
    const client = yield* platformClient(endpoints.apiBaseUrl)
    const tokens = Context.make(AccountTokens, yield* AccountTokens)
    const publisher = yield* makeXPublisher(client)
    return {
      adapters: { platform: "x", route: "direct", publisher, metrics: makeMetrics(client, tokens), probe: makeProbe(client, tokens) },
      oauth: yield* xOAuth(endpoints, client)
    }
  })

/** X in the app's list of direct routes: its real hosts (the API with its token endpoint, and the consent page). */
export const xDirectRoute: DirectRoute = {
  platform: "x",
  defaults: { apiBaseUrl: "https://api.x.com", authBaseUrl: "https://x.com" },
  build: xRoute
}
