/**
 * Whether a LinkedIn connection works: the member's identity answers (GET /v2/userinfo), and
 * token introspection says until when and with which scopes. A token LinkedIn refuses, even after
 * a refresh, is Refused.
 */
import { HttpClientRequest } from "@effect/platform"
import { ConnectionHealth, type ConnectionProbe, type PlatformCallFailed } from "@herald/core"
import { type Context, DateTime, Effect, Option, Redacted, Schema } from "effect"
import { asRead, type PlatformClient, type PlatformEndpoints } from "../kit/index.js"
import { scopeList, UserInfo } from "./LinkedinOAuth.js"
import { sendJson } from "./Rest.js"
import { isOrganization, type Needs, type Token, withToken } from "./Token.js"

const Introspection = Schema.Struct({
  active: Schema.Boolean,
  status: Schema.optional(Schema.String),
  expires_at: Schema.optional(Schema.Number),
  scope: Schema.optional(Schema.String)
})

class TokenInactive extends Schema.TaggedError<TokenInactive>()("TokenInactive", { status: Schema.String }) {}

export const linkedinProbe = (
  endpoints: PlatformEndpoints,
  clients: { readonly api: PlatformClient; readonly auth: PlatformClient },
  context: Context.Context<Needs>
): ConnectionProbe => {
  /** What introspection says of the token; none when it could not say (the identity call already vouched for it). */
  const introspect = (token: Token) =>
    sendJson(
      clients.auth.read,
      HttpClientRequest.post("/oauth/v2/introspectToken").pipe(
        HttpClientRequest.bodyUrlParams({
          client_id: Option.getOrElse(endpoints.clientId, () => ""),
          client_secret: Option.match(endpoints.clientSecret, { onNone: () => "", onSome: Redacted.value }),
          token: token.accessToken
        })
      ),
      "read",
      Introspection
    ).pipe(Effect.option)

  const check = (token: Token) =>
    Effect.gen(function*() {
      yield* sendJson(clients.api.read, HttpClientRequest.get("/v2/userinfo").pipe(HttpClientRequest.bearerToken(token.accessToken)), "read", UserInfo)
      const said = Option.getOrUndefined(yield* introspect(token))
      if (said !== undefined && !said.active) return yield* new TokenInactive({ status: said.status ?? "inactive" })
      const expiresAt = said?.expires_at !== undefined
        ? DateTime.unsafeMake(said.expires_at * 1000)
        : token.stored.expires_at === undefined
        ? null
        : Option.getOrNull(DateTime.make(token.stored.expires_at))
      return ConnectionHealth.Alive({
        expiresAt,
        granted: scopeList(said?.scope ?? token.stored.scope),
        needed: isOrganization(token.author) ? ["w_organization_social"] : ["w_member_social"]
      })
    })

  const refused = (code: string, message: string) => Effect.succeed(ConnectionHealth.Refused({ code, message }))

  return {
    check: (account) =>
      withToken(account, check).pipe(
        Effect.catchTag("TokenInactive", (inactive) => refused(inactive.status, `LinkedIn reports the token ${inactive.status}; reconnect the account`)),
        asRead,
        // A token refused after its refresh, or a refresh refused (no refresh token, revoked): a person must reconnect.
        Effect.catchIf(
          (failed: PlatformCallFailed) => failed.error.category === "auth_expired",
          (failed) => refused(failed.error.code, failed.error.message)
        ),
        Effect.provide(context)
      )
  }
}
