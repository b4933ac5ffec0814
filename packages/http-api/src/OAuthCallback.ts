import { HttpApiBuilder, HttpRouter, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { completeConnection, isPlatform, oauthCallbackPrefix } from "@herald/core"
import { Effect, Option, Schema } from "effect"
import { message } from "./ApprovalPage.js"

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
    denied: single(params, "error")
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

type CallbackServices = Exclude<
  Effect.Effect.Context<typeof callback>,
  HttpRouter.RouteContext | HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams
>

/**
 * GET /oauth/callback/{platform}: where a platform's consent page sends the browser back, with
 * `code` and `state` (or `error`). Public: the one-time state, bound to the project and platform
 * that started the connection, is the credential. Answers a page for the person.
 */
export const OAuthCallbackLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<CallbackServices>()
    const serve = (handler: typeof callback): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpRouter.RouteContext | HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams> =>
      handler.pipe(
        Effect.catchAllCause((cause) =>
          Effect.logError("OAuth callback failed", cause).pipe(
            Effect.as(message("Something went wrong", "Herald could not finish the connection; start it again later.", 500))
          )
        ),
        Effect.provide(context)
      )
    yield* router.get(`${oauthCallbackPrefix}/:platform`, serve(callback))
  })
)
