/**
 * LinkedIn's 3-legged OAuth (authorization code) for Herald's connection flow. LinkedIn's web
 * flow authenticates the app with its client secret and takes no PKCE parameters (PKCE is its
 * native-app flow only), so the challenge the flow hands over is not sent and the verifier is not
 * needed; the state still binds the callback to its start. Refresh tokens are given to approved
 * Marketing Developer Platform apps only: without one, the account reconnects when its 60-day
 * token runs out.
 */
import { HttpClientRequest } from "@effect/platform"
import { type Credentials, type OAuthProvider, PlatformCallFailed, type PlatformIdentity, type TokenGrant } from "@herald/core"
import { Array as Arr, Clock, type Context, DateTime, Effect, Option, Redacted, Schema } from "effect"
import { asRead, consentUrl, type PlatformClient, type PlatformEndpoints } from "../kit/index.js"
import { rest, sendJson } from "./Rest.js"
import { credentialsUnusable, isOrganization, type Needs, StoredToken, tokenOf } from "./Token.js"

/** What Herald asks a member for: who they are (OpenID) and to post as them. */
export const memberScopes = ["openid", "profile", "w_member_social"] as const
/**
 * Added for organisation authors (Community Management API, which LinkedIn approves per app):
 * posting and reading as a page, and listing the pages the member administers (organizationAcls).
 */
export const organizationScopes = ["w_organization_social", "r_organization_social", "rw_organization_admin"] as const

const TokenReply = Schema.Struct({
  access_token: Schema.String,
  expires_in: Schema.Number,
  scope: Schema.optional(Schema.String),
  refresh_token: Schema.optional(Schema.String)
})

export const UserInfo = Schema.Struct({ sub: Schema.String, name: Schema.optional(Schema.String) })
const Organization = Schema.Struct({ localizedName: Schema.optional(Schema.String), vanityName: Schema.optional(Schema.String) })

/** One page of the roleAssignee finder of /rest/organizationAcls. */
const OrganizationAcls = Schema.Struct({
  elements: Schema.Array(Schema.Struct({ organization: Schema.String, role: Schema.String, state: Schema.String }))
})
/** The finder's page size (LinkedIn's default is 10). */
const aclPage = 100

/** OAuth errors that name the app's configuration (client, redirect, products), which no reconnect mends. */
const appErrors = new Set(["invalid_client", "invalid_client_id", "unauthorized_client", "invalid_redirect_uri", "invalid_scope", "unauthorized_scope_error"])

/**
 * A refusal of the token endpoint: a refused client, scope or redirect is the app's
 * configuration; any other refused grant (a code used or expired, a refresh token revoked)
 * means connecting the account again. No answer, a 429 or a 5xx stay as they are.
 */
const tokenFailed = (failed: PlatformCallFailed): PlatformCallFailed => {
  const { category, code, message } = failed.error
  if (category === "transient" || category === "rate_limited") return failed
  return appErrors.has(code)
    ? new PlatformCallFailed({ error: { category: "permission_missing", code, message: `LinkedIn refused Herald's app: ${message} (check HERALD_LINKEDIN_CLIENT_ID, the secret, the redirect URL and the app's products)` }, retryAfterMs: null })
    : new PlatformCallFailed({ error: { category: "auth_expired", code, message: `LinkedIn refused the grant: ${message}; connect the account again` }, retryAfterMs: null })
}

/** Scopes as AccountTokens keeps them: space separated (LinkedIn answers them comma separated). */
export const scopeList = (scope: string | undefined) => scope === undefined ? [] : scope.split(/[ ,]+/).filter((entry) => entry !== "")

export const linkedinOAuth = (
  endpoints: PlatformEndpoints,
  clients: { readonly api: PlatformClient; readonly auth: PlatformClient },
  scopes: ReadonlyArray<string>,
  context: Context.Context<Needs>
): OAuthProvider => {
  const clientId = Option.getOrElse(endpoints.clientId, () => "")
  const client = () => ({
    client_id: clientId,
    client_secret: Option.match(endpoints.clientSecret, { onNone: () => "", onSome: Redacted.value })
  })

  const grant = (form: Record<string, string>, keep: (reply: typeof TokenReply.Type) => Effect.Effect<Record<string, string>, PlatformCallFailed>) =>
    Effect.gen(function*() {
      const reply = yield* sendJson(
        clients.auth.read,
        HttpClientRequest.post("/oauth/v2/accessToken").pipe(HttpClientRequest.bodyUrlParams({ ...form, ...client() })),
        "read",
        TokenReply
      ).pipe(asRead, Effect.mapError(tokenFailed))
      const now = yield* Clock.currentTimeMillis
      const expiresAt = DateTime.unsafeMake(now + reply.expires_in * 1000)
      const credentials: Credentials = {
        ...(yield* keep(reply)),
        access_token: reply.access_token,
        expires_at: DateTime.formatIso(expiresAt),
        ...(reply.scope === undefined ? {} : { scope: scopeList(reply.scope).join(" ") }),
        ...(reply.refresh_token === undefined ? {} : { refresh_token: reply.refresh_token })
      }
      return { credentials, expiresAt } satisfies TokenGrant
    })

  const userInfo = (accessToken: string) =>
    sendJson(clients.api.read, HttpClientRequest.get("/v2/userinfo").pipe(HttpClientRequest.bearerToken(accessToken)), "read", UserInfo).pipe(asRead)

  const exchange: OAuthProvider["exchange"] = ({ code, redirectUri }) =>
    grant({ grant_type: "authorization_code", code, redirect_uri: redirectUri }, (reply) =>
      Effect.map(userInfo(reply.access_token), (member) => {
        const urn = `urn:li:person:${member.sub}`
        return { member_urn: urn, author_urn: urn }
      })).pipe(Effect.provide(context))

  const refresh: OAuthProvider["refresh"] = (credentials) =>
    Effect.gen(function*() {
      const { stored } = yield* tokenOf(credentials)
      const refreshToken = stored.refresh_token
      if (refreshToken === undefined) {
        return yield* new PlatformCallFailed({
          error: {
            category: "auth_expired",
            code: "no_refresh_token",
            message: "LinkedIn gives refresh tokens to approved partner apps only and this connection has none; reconnect the account"
          },
          retryAfterMs: null
        })
      }
      // LinkedIn's refresh token is good for 365 days from the first grant and is not replaced;
      // the one Herald holds stays when the reply carries no other.
      return yield* grant(
        { grant_type: "refresh_token", refresh_token: refreshToken },
        () => Effect.succeed({ member_urn: stored.member_urn, author_urn: stored.author_urn, refresh_token: refreshToken })
      )
    }).pipe(Effect.provide(context))

  const identify: OAuthProvider["identify"] = (credentials) =>
    Effect.gen(function*() {
      const stored = yield* Effect.mapError(Schema.decodeUnknown(StoredToken)(credentials), credentialsUnusable)
      const member = yield* userInfo(stored.access_token)
      if (!isOrganization(stored.author_urn)) {
        return { platformAccountId: `urn:li:person:${member.sub}`, username: member.name ?? member.sub } satisfies PlatformIdentity
      }
      const id = stored.author_urn.slice("urn:li:organization:".length)
      const organization = yield* sendJson(clients.api.read, rest("GET", `/rest/organizations/${encodeURIComponent(id)}`, stored.access_token), "read", Organization).pipe(asRead)
      return { platformAccountId: stored.author_urn, username: organization.vanityName ?? organization.localizedName ?? id } satisfies PlatformIdentity
    }).pipe(Effect.provide(context))

  /**
   * The member and, when the grant may post as pages, the pages the member administers: the
   * approved ADMINISTRATOR roles of the roleAssignee finder (the token's member is the assignee),
   * page by page, each identified like the member and sharing the member's token and expiry.
   */
  const accountsOf: NonNullable<OAuthProvider["accountsOf"]> = (grant) =>
    Effect.gen(function*() {
      const { credentials } = grant
      const member = { grant, identity: yield* identify(credentials) }
      const stored = yield* Effect.mapError(Schema.decodeUnknown(StoredToken)(credentials), credentialsUnusable)
      if (!scopeList(stored.scope).includes("w_organization_social")) return Arr.of(member)
      const ids: Array<string> = []
      for (let start = 0;; start += aclPage) {
        const page = yield* sendJson(
          clients.api.read,
          rest("GET", `/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED&start=${start}&count=${aclPage}`, stored.access_token),
          "read",
          OrganizationAcls
        ).pipe(asRead)
        for (const acl of page.elements) {
          if (acl.role === "ADMINISTRATOR" && acl.state === "APPROVED" && isOrganization(acl.organization)) ids.push(acl.organization.slice("urn:li:organization:".length))
        }
        if (page.elements.length < aclPage) break
      }
      const organizations = yield* Effect.forEach(ids, (id) => {
        const posting = asOrganization(credentials, id)
        return Effect.map(identify(posting), (identity) => ({ grant: { credentials: posting, expiresAt: grant.expiresAt }, identity }))
      })
      return Arr.prepend(organizations, member)
    }).pipe(Effect.provide(context))

  return {
    platform: "linkedin",
    accountsOf,
    start: consentUrl(({ redirectUri, state }) =>
      `${endpoints.authBaseUrl}/oauth/v2/authorization?${new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUri,
        state,
        scope: scopes.join(" ")
      })}`),
    exchange,
    refresh,
    identify
  }
}

/** Credentials that post as an organisation the member administers, instead of as the member. */
export const asOrganization = (credentials: Credentials, organizationId: string): Credentials => ({
  ...credentials,
  author_urn: `urn:li:organization:${organizationId}`
})
