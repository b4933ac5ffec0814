import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { blueskyClientMetadata, blueskyClientMetadataPath, completeConnection, isPlatform, oauthCallbackPrefix } from "@herald/core"
import { Effect, Option, Schema } from "effect"
import { message } from "./ApprovalPage.js"
import { HttpApiConfig } from "./ApprovalLinks.js"

const platformParam = HttpRouter.schemaPathParams(Schema.Struct({ platform: Schema.String }))

/** A query parameter given once (a repeated one is refused like a missing one). */
const single = (params: Readonly<Record<string, string | ReadonlyArray<string>>>, name: string): Option.Option<string> => {
  const value = params[name]
  return typeof value === "string" && value !== "" && value.length <= 4096 ? Option.some(value) : Option.none()
}

const callback = Effect.gen(function*() {
  const { platform } = yield* platformParam
  if (!isPlatform(platform)) return message("Not connected", `Herald does not know the platform ${JSON.stringify(platform.slice(0, 40))}.`, 404)
  const params = yield* HttpServerRequest.ParsedSearchParams
  const state = single(params, "state")
  if (Option.isNone(state)) return message("Not connected", "The platform's answer carries no state; start the connection again.", 400)
  return yield* completeConnection(platform, {
    state: state.value,
    code: single(params, "code"),
    denied: single(params, "error"),
    issuer: single(params, "iss")
  }).pipe(
    Effect.map((account) =>
      message("Connected", `${account.platform}:${account.username} is connected to Herald (account ${account.id}). You can close this page.`, 200)
    ),
    Effect.catchTags({
      ConnectionStateInvalid: (invalid) => Effect.succeed(message("Not connected", invalid.message, 400)),
      ConnectionRefused: (refused) => Effect.succeed(message("Not connected", refused.message, 400)),
      ConnectionMethodMismatch: (mismatch) => Effect.succeed(message("Not connected", mismatch.message, 400)),
      PlatformNotConfigured: (unconfigured) => Effect.succeed(message("Not connected", unconfigured.message, 400)),
      DirectRouteUnavailable: (unavailable) => Effect.succeed(message("Not connected", unavailable.message, 400))
    })
  )
})

/**
 * Herald's atproto OAuth client metadata: the document every Bluesky authorization server fetches
 * from the client id, which is this URL. Only an https public URL makes it one; on any other the
 * client id is the loopback client's, and there is no document.
 */
const blueskyMetadata = Effect.map(HttpApiConfig, (config) =>
  /^https:\/\//.test(config.baseUrl)
    ? HttpServerResponse.unsafeJson(blueskyClientMetadata(config.baseUrl), { headers: { "cache-control": "public, max-age=300" } })
    : HttpServerResponse.text("Herald's public URL is not https, so it publishes no atproto client metadata.", { status: 404 }))

type CallbackServices = Exclude<
  Effect.Effect.Context<typeof callback> | HttpApiConfig,
  HttpRouter.RouteContext | HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams
>

/**
 * GET /oauth/callback/{platform}: where a platform's consent page sends the browser back, with
 * `code` and `state` (or `error`; atproto adds `iss`), and GET /oauth/bluesky/client-metadata.json. Public: the one-time state, bound to the project and platform
 * that started the connection, is the credential. Answers a page for the person.
 */
export const OAuthCallbackLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<CallbackServices>()
    const serve = <E>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, CallbackServices | HttpRouter.RouteContext | HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams>): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpRouter.RouteContext | HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams> =>
      handler.pipe(
        Effect.catchAllCause((cause) =>
          Effect.logError("OAuth callback failed", cause).pipe(
            Effect.as(message("Something went wrong", "Herald could not finish the connection; start it again later.", 500))
          )
        ),
        Effect.provide(context)
      )
    yield* router.get(`${oauthCallbackPrefix}/:platform`, serve(callback))
    yield* router.get(blueskyClientMetadataPath, serve(blueskyMetadata))
  })
)
