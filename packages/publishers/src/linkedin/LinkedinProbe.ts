/**
 * Whether a LinkedIn connection works: the member's identity answers (GET /v2/userinfo), and
 * token introspection says until when and with which scopes. A token LinkedIn refuses, even after
 * a refresh, is Refused.
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { ConnectionHealth, type ConnectionProbe, PlatformCallFailed } from "@herald/core"
import { type Context, DateTime, Effect, Option, Redacted, Schema } from "effect"
import type { PlatformEndpoints } from "./KitShim.js"
import { readFailed } from "./LinkedinErrors.js"
import { defaultAuthBaseUrl, UserInfo } from "./LinkedinOAuth.js"
import { sendJson, under } from "./Rest.js"
import { isOrganization, type Needs, StoredToken, type Token, withToken } from "./Token.js"

const Introspection = Schema.Struct({
  active: Schema.Boolean,
  status: Schema.optional(Schema.String),
  expires_at: Schema.optional(Schema.Number),
  scope: Schema.optional(Schema.String)
})

const scopesOf = (scope: string | undefined) => scope === undefined ? [] : scope.split(/[ ,]+/).filter((entry) => entry !== "")

class TokenInactive extends Schema.TaggedError<TokenInactive>()("TokenInactive", { status: Schema.String }) {}

export const linkedinProbe = (config: PlatformEndpoints, context: Context.Context<Needs>): ConnectionProbe => {
  const api = (path: string) => under(config.apiBaseUrl, path)
  const auth = (path: string) => under(config.authBaseUrl ?? defaultAuthBaseUrl, path)

  /** What introspection says of the token; none when it could not say (the identity call already vouched for it). */
  const introspect = (token: Token): Effect.Effect<Option.Option<typeof Introspection.Type>, never, HttpClient.HttpClient> =>
    sendJson(
      HttpClientRequest.post(auth("/oauth/v2/introspectToken")).pipe(
        HttpClientRequest.bodyUrlParams({
          client_id: config.clientId ?? "",
          client_secret: config.clientSecret === undefined ? "" : Redacted.value(config.clientSecret),
          token: token.accessToken
        })
      ),
      "read",
      Introspection
    ).pipe(Effect.option)

  const check = (token: Token) =>
    Effect.gen(function*() {
      yield* sendJson(HttpClientRequest.get(api("/v2/userinfo")).pipe(HttpClientRequest.bearerToken(token.accessToken)), "read", UserInfo)
      const stored = Option.getOrUndefined(Schema.decodeUnknownOption(StoredToken)(token.credentials))
      const introspection = yield* introspect(token)
      if (Option.isSome(introspection) && !introspection.value.active) {
        return yield* new TokenInactive({ status: introspection.value.status ?? "inactive" })
      }
      const said = Option.getOrUndefined(introspection)
      const expiresAt = said?.expires_at !== undefined
        ? DateTime.unsafeMake(said.expires_at * 1000)
        : stored?.expires_at === undefined
        ? null
        : Option.getOrNull(DateTime.make(stored.expires_at))
      return ConnectionHealth.Alive({
        expiresAt,
        granted: scopesOf(said?.scope ?? stored?.scope),
        needed: isOrganization(token.author) ? ["w_organization_social"] : ["w_member_social"]
      })
    })

  return {
    check: (account) =>
      withToken(account, check, (failed) =>
        typeof failed === "string"
          ? new PlatformCallFailed({ error: { category: "auth_expired", code: "credentials_unusable", message: failed }, retryAfterMs: null })
          : failed).pipe(
          Effect.catchTags({
            TokenInactive: (inactive) =>
              Effect.succeed(ConnectionHealth.Refused({ code: inactive.status, message: `LinkedIn reports the token ${inactive.status}; reconnect the account` })),
            LinkedinRefused: (refused) =>
              refused.status === 401
                ? Effect.succeed(ConnectionHealth.Refused({ code: refused.code, message: `LinkedIn refused the token: ${refused.message}` }))
                : Effect.fail(readFailed(refused)),
            LinkedinNoAnswer: (failure) => Effect.fail(readFailed(failure))
          }),
          // A refresh LinkedIn refused (or no refresh token to try) is a refused connection too.
          Effect.catchIf(
            (failed): failed is PlatformCallFailed => failed._tag === "PlatformCallFailed" && failed.error.category === "auth_expired",
            (failed) => Effect.succeed(ConnectionHealth.Refused({ code: failed.error.code, message: failed.error.message }))
          ),
          Effect.provide(context)
        )
  }
}
