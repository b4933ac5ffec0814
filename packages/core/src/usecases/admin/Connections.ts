import { Array, DateTime, Duration, Effect, Option, Redacted, Schema } from "effect"
import { type ConnectionRoute, SocialAccount } from "../../Account.js"
import { AccountId, type ProjectId } from "../../Ids.js"
import type { Platform } from "../../Platform.js"
import { AccountAdmin, type Credentials } from "../../ports/AccountAdmin.js"
import { ConnectionChecks } from "../../ports/ConnectionChecks.js"
import { ConnectionStates } from "../../ports/ConnectionStates.js"
import { IdGenerator } from "../../ports/IdGenerator.js"
import { type AggregatorKeys, type ConnectionMethod, oauthCallbackPath, type OAuthProvider, OAuthProviders, type PasswordLogin, type PlatformIdentity, type TokenGrant } from "../../ports/OAuthProviders.js"
import type { PlatformCallFailed } from "../../ports/RouteAdapters.js"
import { SecretMint } from "../../ports/SecretMint.js"
import { getProject } from "./Projects.js"

/** How long a consent page may take before its state is refused. */
export const connectionStateLifetime = Duration.minutes(10)

/** The platform has a direct publisher, but its OAuth client is not configured on this instance. */
export class PlatformNotConfigured extends Schema.TaggedError<PlatformNotConfigured>()("PlatformNotConfigured", {
  platform: Schema.String,
  variables: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `${this.platform} is not configured on this instance: set ${this.variables.join(" and ")} (docs/configuration.md)`
  }
}

/** This build has no direct publisher for the platform, so its accounts cannot be connected directly. */
export class DirectRouteUnavailable extends Schema.TaggedError<DirectRouteUnavailable>()("DirectRouteUnavailable", {
  platform: Schema.String,
  /** The login asked for (Instagram's facebook_login); direct when none was named. */
  route: Schema.optionalWith(Schema.String, { default: () => "direct" })
}) {
  override get message(): string {
    return this.route === "direct"
      ? `${this.platform} cannot be connected through the direct route yet: this build has no direct ${this.platform} publisher`
      : `${this.platform} cannot be connected through its ${this.route} route yet: this build has no ${this.platform} publisher for it`
  }
}

/** The platform is connected the other way (a consent page, or a login), named in `use`. */
export class ConnectionMethodMismatch extends Schema.TaggedError<ConnectionMethodMismatch>()("ConnectionMethodMismatch", {
  platform: Schema.String,
  use: Schema.Literal("oauth", "login", "keys")
}) {
  override get message(): string {
    return this.use === "oauth"
      ? `${this.platform} accounts are connected through the platform's consent page: start with accounts/oauth`
      : this.use === "keys"
      ? `${this.platform} accounts on this route are connected with the aggregator's keys: POST accounts with api_key (and profile_key)`
      : `${this.platform} accounts are connected with a login (an app password): use accounts/login`
  }
}

/**
 * The callback's state is unknown, used already, expired, or was issued for another platform:
 * nothing is connected.
 */
export class ConnectionStateInvalid extends Schema.TaggedError<ConnectionStateInvalid>()("ConnectionStateInvalid", {
  reason: Schema.Literal("unknown", "expired", "foreign")
}) {
  override get message(): string {
    return this.reason === "expired"
      ? "this consent link expired (they last 10 minutes); start the connection again"
      : this.reason === "foreign"
      ? "this consent answer was meant for another platform's callback; start the connection again"
      : "this consent answer is unknown or was used already; start the connection again"
  }
}

/** The platform refused the connection (the person declined, a code or login was refused). */
export class ConnectionRefused extends Schema.TaggedError<ConnectionRefused>()("ConnectionRefused", {
  platform: Schema.String,
  code: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `${this.platform} refused the connection (${this.code}): ${this.detail}`
  }
}

export interface StartedConnection {
  readonly authorizeUrl: string
  readonly expiresAt: DateTime.Utc
  readonly redirectUri: string
}

const refused = (platform: Platform) => (failure: PlatformCallFailed) =>
  new ConnectionRefused({ platform, code: failure.error.code, detail: failure.error.message })

const methodsOf = (platform: Platform, route: ConnectionRoute = "direct") =>
  Effect.map(OAuthProviders, (providers) => providers.methods(platform, route))

/**
 * The platform's direct-route connection method when it is `wanted`; otherwise the refusal that
 * says how it does connect (the other method), what to configure, or that no direct route exists.
 */
const connectionMethod = <T extends "OAuth" | "Password" | "Keys">(platform: Platform, wanted: T, route: ConnectionRoute = "direct") =>
  Effect.gen(function*() {
    const methods = yield* methodsOf(platform, route)
    const found = methods.find((method) => method._tag === wanted)
    if (found !== undefined) return found as Extract<ConnectionMethod, { readonly _tag: T }>
    const [method] = methods
    if (method?._tag === "Unconfigured") return yield* new PlatformNotConfigured({ platform, variables: method.variables })
    if (method === undefined || method._tag === "Unavailable") return yield* new DirectRouteUnavailable({ platform, route })
    return yield* new ConnectionMethodMismatch({ platform, use: method._tag === "Keys" ? "keys" : method._tag === "OAuth" ? "oauth" : "login" })
  })

const oauthProvider = (platform: Platform, route: ConnectionRoute) => Effect.map(connectionMethod(platform, "OAuth", route), (method) => method.provider)

const passwordLogin = (platform: Platform) => Effect.map(connectionMethod(platform, "Password"), (method) => method.login)

/** Why a direct account cannot be connected by name: which way it is connected, or why it cannot be. */
export const directConnectionRefusal = Effect.fnUntraced(function*(platform: Platform) {
  const [method] = yield* methodsOf(platform)
  switch (method?._tag) {
    case "OAuth":
      return yield* new ConnectionMethodMismatch({ platform, use: "oauth" })
    case "Password":
      return yield* new ConnectionMethodMismatch({ platform, use: "login" })
    case "Keys":
      return yield* new ConnectionMethodMismatch({ platform, use: "keys" })
    case "Unconfigured":
      return yield* new PlatformNotConfigured({ platform, variables: method.variables })
    case "Unavailable":
    case undefined:
      return yield* new DirectRouteUnavailable({ platform })
  }
})

/**
 * Starts connecting a platform account to the project: a one-time state (bound to the project,
 * the platform and the caller, good for 10 minutes) and a PKCE pair; the answer is the consent
 * URL to open. `loginHint` names the account to connect where the platform finds its server
 * from it (a Bluesky handle or DID); a start the platform refuses (an unknown handle, a refused
 * pushed request) saves no state.
 */
export const startConnection = Effect.fnUntraced(function*(
  projectId: ProjectId,
  platform: Platform,
  from: {
    /** Who asks (the admin API, the SDK host), kept with the state. */
    readonly caller: string
    /** Herald's public base URL, where the platform sends the browser back. */
    readonly publicUrl: string
    readonly loginHint?: string | undefined
  },
  /** The login to connect through, where the platform has more than one (Instagram's facebook_login). */
  route: ConnectionRoute = "direct"
) {
  yield* getProject(projectId)
  const provider = yield* oauthProvider(platform, route)
  const { codeChallenge, codeVerifier, state } = yield* Effect.flatMap(SecretMint, (mint) => mint.oauthState)
  const caller = from.caller
  const publicUrl = from.publicUrl.replace(/\/+$/, "")
  const redirectUri = `${publicUrl}${oauthCallbackPath(platform)}`
  const loginHint = from.loginHint?.trim() || null
  const started = yield* provider.start({ state, codeChallenge, redirectUri, publicUrl, loginHint }).pipe(Effect.mapError(refused(platform)))
  const expiresAt = DateTime.addDuration(yield* DateTime.now, connectionStateLifetime)
  yield* Effect.flatMap(ConnectionStates, (states) =>
    states.save({ state, projectId, platform, route, caller, codeVerifier, redirectUri, expiresAt, carried: started.carried }))
  return { authorizeUrl: started.authorizeUrl, expiresAt, redirectUri } satisfies StartedConnection
})

/** The credentials to store from a grant: the platform's, with the expiry in AccountTokens' convention. */
export const grantCredentials = (grant: TokenGrant): Credentials => ({
  ...grant.credentials,
  ...(grant.expiresAt === null ? {} : { expires_at: DateTime.formatIso(grant.expiresAt) })
})

/** Connects (or reconnects, matched on the platform's account id) the account the grant belongs to. */
const connectGranted = Effect.fnUntraced(function*(
  projectId: ProjectId,
  platform: Platform,
  route: ConnectionRoute,
  grant: TokenGrant,
  identity: PlatformIdentity
) {
  const account = new SocialAccount({
    id: AccountId.make(yield* Effect.flatMap(IdGenerator, (ids) => ids.uuid)),
    projectId,
    platform,
    username: identity.username.replace(/^@/, ""),
    route,
    status: "active",
    ...(identity.report === undefined ? {} : { report: identity.report })
  })
  const connected = yield* Effect.flatMap(AccountAdmin, (admin) =>
    admin.connectPlatformAccount(account, grantCredentials(grant), identity.platformAccountId))
  // A reconnect answers the incidents a dead login opened: they close now, not at the next probe.
  const now = yield* DateTime.now
  yield* Effect.flatMap(ConnectionChecks, (checks) => checks.reconnected(connected.id, now))
  return connected
})

/**
 * The consent page's answer: the state is taken (once), the code exchanged with its PKCE
 * verifier, and the accounts the grant covers (the granting account, or those the provider's
 * `accountsOf` names) identified and connected to the project that started it. `denied` is the
 * platform's `error` parameter when the person declined. The answer is the first account
 * connected (the granting one where it is one).
 */
export const completeConnection = Effect.fnUntraced(function*(
  platform: Platform,
  answer: {
    readonly state: string
    readonly code: Option.Option<string>
    readonly denied: Option.Option<string>
    /** The `iss` parameter (RFC 9207), which atproto's authorization servers send. */
    readonly issuer?: Option.Option<string>
  }
) {
  const now = yield* DateTime.now
  const pending = yield* Effect.flatMap(ConnectionStates, (states) => states.take(answer.state, now))
  if (Option.isNone(pending)) return yield* new ConnectionStateInvalid({ reason: "unknown" })
  const started = pending.value
  if (DateTime.lessThanOrEqualTo(started.expiresAt, now)) return yield* new ConnectionStateInvalid({ reason: "expired" })
  if (started.platform !== platform) return yield* new ConnectionStateInvalid({ reason: "foreign" })
  const provider: OAuthProvider = yield* oauthProvider(platform, started.route)
  if (Option.isSome(answer.denied) || Option.isNone(answer.code)) {
    return yield* new ConnectionRefused({
      platform,
      code: Option.getOrElse(answer.denied, () => "no_code"),
      detail: "the consent page returned no authorization code"
    })
  }
  const grant = yield* provider.exchange({
    code: answer.code.value,
    codeVerifier: Redacted.value(started.codeVerifier),
    redirectUri: started.redirectUri,
    carried: started.carried,
    issuer: Option.getOrNull(answer.issuer ?? Option.none())
  }).pipe(Effect.mapError(refused(platform)))
  // Every account the grant covers is identified before any is connected: a refusal connects none.
  const accounts = yield* (provider.accountsOf === undefined
    ? Effect.map(provider.identify(grantCredentials(grant)), (identity) => Array.of({ grant, identity }))
    : provider.accountsOf(grant)).pipe(Effect.mapError(refused(platform)))
  const [connected] = yield* Effect.forEach(accounts, (account) =>
    connectGranted(started.projectId, platform, started.route, account.grant, account.identity))
  return connected
})

/**
 * Connects an account with a login (Bluesky's app passwords): the password goes to the platform
 * once and is never kept; only the session's tokens are stored.
 */
export const loginConnection = Effect.fnUntraced(function*(
  projectId: ProjectId,
  platform: Platform,
  credentials: { readonly identifier: string; readonly password: Redacted.Redacted<string> }
) {
  yield* getProject(projectId)
  const login: PasswordLogin = yield* passwordLogin(platform)
  const session = yield* login.login(credentials).pipe(Effect.mapError(refused(platform)))
  return yield* connectGranted(projectId, platform, "direct", session, session)
})


/**
 * Connects (or reconnects, matched on the network account's id) an account through an
 * aggregator's keys (route aggregator or aggregator_login): the aggregator is asked which network
 * account the keys reach, and `username` must be that account, so an operator never connects an
 * account other than the one they named. The keys are stored sealed, as tokens are.
 */
export const keyConnection = Effect.fnUntraced(function*(
  projectId: ProjectId,
  platform: Platform,
  route: ConnectionRoute,
  username: string,
  keys: AggregatorKeys
) {
  yield* getProject(projectId)
  const method = yield* connectionMethod(platform, "Keys", route)
  const reached = yield* method.connection.connect(keys).pipe(Effect.mapError(refused(platform)))
  const named = username.replace(/^@/, "")
  if (reached.username.toLowerCase() !== named.toLowerCase()) {
    return yield* new ConnectionRefused({
      platform,
      code: "username_mismatch",
      detail: `these keys reach ${platform} account @${reached.username}, not @${named}; name the account the profile links`
    })
  }
  return yield* connectGranted(projectId, platform, route, reached, reached)
})
