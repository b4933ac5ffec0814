/**
 * atproto OAuth (https://atproto.com/specs/oauth) on the kit, signing with Dpop.ts: the account's
 * handle or DID resolved to its DID document and PDS, the PDS's authorization server found from
 * its protected-resource metadata, a pushed authorization request (PAR) with PKCE S256 and a
 * DPoP proof, and after the consent the code exchanged with the same DPoP key. The tokens are
 * DPoP-bound: the key is sealed with the state from start to callback and then stored with them.
 * The identity is the token's `sub` (a DID), checked against the DID resolved at start and
 * against its DID document (its PDS must name the same authorization server).
 */
import { HttpClientRequest, HttpClientResponse } from "@effect/platform"
import {
  blueskyClient,
  blueskyOAuthScope,
  type Credentials,
  type DeliveryError,
  type OAuthProvider,
  PlatformCallFailed,
  type TokenGrant
} from "@herald/core"
import { DateTime, Effect, Either, Option, Redacted, Schema } from "effect"
import { asRead, type PlatformClient, refusal, tokenEndpointError } from "../kit/index.js"
import { dpopExecute, dpopKeyOf, DpopPrivateJwk, generateDpopKey } from "./Dpop.js"
import { type OAuthBinding, sessionOf, StoredOAuthSession } from "./Session.js"
import { query, send } from "./Xrpc.js"

export interface AtprotoOAuthSettings {
  /** Where handles are resolved (com.atproto.identity.resolveHandle): HERALD_BLUESKY_API_URL. */
  readonly resolver: PlatformClient
  /** Any URL: for fetches to the hosts a DID document and the metadata name. */
  readonly anywhere: PlatformClient
  /** The entryway whose authorization server serves a start without a handle: HERALD_BLUESKY_AUTH_URL. */
  readonly entryway: string
  /** The PLC directory did:plc documents come from: HERALD_BLUESKY_PLC_URL. */
  readonly plcUrl: string
  /** HERALD_BLUESKY_CLIENT_ID: a client id to use instead of the one derived from Herald's public URL. */
  readonly clientId: Option.Option<string>
}

const fail = (category: DeliveryError["category"], code: string, message: string) =>
  new PlatformCallFailed({ error: { category, code, message }, retryAfterMs: null })

const DidDocument = Schema.Struct({
  id: Schema.String,
  alsoKnownAs: Schema.optional(Schema.Array(Schema.String)),
  service: Schema.optional(Schema.Array(Schema.Struct({ id: Schema.String, type: Schema.String, serviceEndpoint: Schema.Unknown })))
})
const ProtectedResource = Schema.Struct({ authorization_servers: Schema.NonEmptyArray(Schema.String) })
const ServerMetadata = Schema.Struct({
  issuer: Schema.String,
  pushed_authorization_request_endpoint: Schema.String,
  authorization_endpoint: Schema.String,
  token_endpoint: Schema.String
})
type ServerMetadata = typeof ServerMetadata.Type
const ResolvedHandle = Schema.Struct({ did: Schema.String })
const PushedRequest = Schema.Struct({ request_uri: Schema.String })
const TokenReply = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.String,
  refresh_token: Schema.String,
  expires_in: Schema.optional(Schema.Number),
  scope: Schema.optional(Schema.String),
  sub: Schema.String
})
const SessionInfo = Schema.Struct({ did: Schema.String, handle: Schema.String })

/** What the start hands to the exchange, sealed with the state. */
const Carried = Schema.parseJson(Schema.Struct({
  dpop_key: DpopPrivateJwk,
  issuer: Schema.String,
  token_endpoint: Schema.String,
  client_id: Schema.String,
  /** The redirect URI the pushed request named (a loopback client's names 127.0.0.1 where Herald's public URL says localhost). */
  redirect_uri: Schema.String,
  /** The DID the person named at start; null when they named none. */
  did: Schema.NullOr(Schema.String)
}))

const trimmed = (url: string) => url.replace(/\/+$/, "")

export const atprotoOAuthProvider = (settings: AtprotoOAuthSettings) => {
  const { anywhere } = settings

  const getJson = <A, I>(url: string, schema: Schema.Schema<A, I>, what: string) =>
    asRead(Effect.scoped(Effect.gen(function*() {
      const response = yield* anywhere.read.execute(HttpClientRequest.get(url).pipe(HttpClientRequest.acceptJson))
      if (response.status !== 200) {
        return yield* fail("not_found", "resolution_failed", `${what} (${url}) answered ${response.status}`)
      }
      return yield* HttpClientResponse.schemaBodyJson(schema)(response)
    })))

  const didDocument = (did: string) => {
    const url = did.startsWith("did:plc:")
      ? `${trimmed(settings.plcUrl)}/${encodeURIComponent(did)}`
      : did.startsWith("did:web:")
      ? `https://${decodeURIComponent(did.slice("did:web:".length))}/.well-known/did.json`
      : null
    return url === null
      ? Effect.fail(fail("not_found", "unsupported_did", `${did} is neither a did:plc nor a did:web`))
      : getJson(url, DidDocument, `the DID document of ${did}`)
  }

  /** The account's PDS: the #atproto_pds service of its DID document. */
  const pdsOf = (did: string) =>
    Effect.flatMap(didDocument(did), (document) => {
      const service = document.service?.find((entry) => entry.id.endsWith("#atproto_pds") && entry.type === "AtprotoPersonalDataServer")
      return document.id === did && typeof service?.serviceEndpoint === "string"
        ? Effect.succeed({ pdsUrl: trimmed(service.serviceEndpoint), document })
        : Effect.fail(fail("not_found", "no_pds", `the DID document of ${did} names no PDS`))
    })

  /** The authorization server a PDS names, with its metadata (whose issuer must be that server). */
  const authorizationServerOf = (pdsUrl: string) =>
    Effect.gen(function*() {
      const resource = yield* getJson(`${pdsUrl}/.well-known/oauth-protected-resource`, ProtectedResource, "the PDS's resource metadata")
      const issuer = trimmed(resource.authorization_servers[0])
      const metadata = yield* getJson(`${issuer}/.well-known/oauth-authorization-server`, ServerMetadata, "the authorization server's metadata")
      if (trimmed(metadata.issuer) !== issuer) {
        return yield* fail("auth_expired", "issuer_mismatch", `the authorization server at ${issuer} calls itself ${metadata.issuer}`)
      }
      return metadata
    })

  const resolveDid = (hint: string) =>
    hint.startsWith("did:")
      ? Effect.succeed(hint)
      : asRead(send(settings.resolver, {
        kind: "read",
        request: query("com.atproto.identity.resolveHandle", { handle: hint.replace(/^@/, "") }),
        reply: ResolvedHandle
      })).pipe(
        Effect.map((resolved) => resolved.did),
        Effect.mapError((failed) =>
          fail("not_found", failed.error.code, `the handle ${hint} could not be resolved to an account: ${failed.error.message}`)
        )
      )

  /** A form post to the authorization server, DPoP-signed with `key`, its reply read by `schema`. */
  const formPost = <A, I>(url: string, form: Record<string, string>, key: ReturnType<typeof dpopKeyOf>, schema: Schema.Schema<A, I>) =>
    asRead(Effect.scoped(Effect.gen(function*() {
      const request = HttpClientRequest.post(url).pipe(HttpClientRequest.bodyUrlParams(form), HttpClientRequest.acceptJson)
      const response = yield* dpopExecute(anywhere.read, request, key)
      if (response.status !== 200 && response.status !== 201) return yield* Effect.flip(refusal(response, tokenEndpointError))
      return yield* HttpClientResponse.schemaBodyJson(schema)(response)
    })))

  const grantOf = (reply: typeof TokenReply.Type, handle: string, binding: OAuthBinding) =>
    Effect.gen(function*() {
      if (reply.token_type.toLowerCase() !== "dpop") {
        return yield* fail("auth_expired", "not_dpop_bound", `the authorization server issued a ${reply.token_type} token, not a DPoP-bound one`)
      }
      const now = yield* DateTime.now
      const expiresAt = reply.expires_in === undefined ? null : DateTime.addDuration(now, `${Math.round(reply.expires_in)} seconds`)
      const stored: StoredOAuthSession = {
        access_token: reply.access_token,
        refresh_token: reply.refresh_token,
        did: reply.sub,
        handle,
        dpop_key: binding.dpop_key,
        pds_url: binding.pds_url,
        issuer: binding.issuer,
        token_endpoint: binding.token_endpoint,
        client_id: binding.client_id
      }
      return { credentials: { ...stored, ...(reply.scope === undefined ? {} : { scope: reply.scope }) }, expiresAt } satisfies TokenGrant
    })

  const start: OAuthProvider["start"] = (request) =>
    Effect.gen(function*() {
      const client = Option.match(settings.clientId, {
        onNone: () => blueskyClient(request.publicUrl),
        onSome: (clientId) => ({ clientId, redirectUri: request.redirectUri })
      })
      if (client === null) {
        return yield* fail(
          "permission_missing",
          "client_id_unavailable",
          `atproto OAuth needs Herald's public URL on https (its client metadata URL is the client id) or on http://127.0.0.1 (a loopback client, for development), or HERALD_BLUESKY_CLIENT_ID; the public URL is ${request.publicUrl}`
        )
      }
      const did = request.loginHint === null ? null : yield* resolveDid(request.loginHint)
      const pdsUrl = did === null ? trimmed(settings.entryway) : (yield* pdsOf(did)).pdsUrl
      const server = yield* authorizationServerOf(pdsUrl)
      const key = generateDpopKey()
      const pushed = yield* formPost(server.pushed_authorization_request_endpoint, {
        client_id: client.clientId,
        response_type: "code",
        // Herald's callback reads the query; the fragment never reaches a server.
        response_mode: "query",
        redirect_uri: client.redirectUri,
        scope: blueskyOAuthScope,
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: "S256",
        ...(request.loginHint === null ? {} : { login_hint: request.loginHint })
      }, key, PushedRequest)
      const authorizeUrl = `${server.authorization_endpoint}?${new URLSearchParams({ client_id: client.clientId, request_uri: pushed.request_uri })}`
      const carried = Schema.encodeSync(Carried)({
        dpop_key: key.jwk,
        issuer: trimmed(server.issuer),
        token_endpoint: server.token_endpoint,
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        did
      })
      return { authorizeUrl, carried: Redacted.make(carried) }
    })

  const exchange: OAuthProvider["exchange"] = (answer) =>
    Effect.gen(function*() {
      const carried = answer.carried === null ? Either.left(null) : Schema.decodeEither(Carried)(Redacted.value(answer.carried))
      if (Either.isLeft(carried)) return yield* fail("auth_expired", "state_incomplete", "the connection state carries no DPoP key; start the connection again")
      const started = carried.right
      if (answer.issuer !== null && trimmed(answer.issuer) !== started.issuer) {
        return yield* fail("auth_expired", "issuer_mismatch", `the answer came from ${answer.issuer}, not from ${started.issuer}, where the connection started`)
      }
      const key = dpopKeyOf(started.dpop_key)
      const reply = yield* formPost(started.token_endpoint, {
        grant_type: "authorization_code",
        code: answer.code,
        redirect_uri: started.redirect_uri,
        code_verifier: answer.codeVerifier,
        client_id: started.client_id
      }, key, TokenReply)
      if (started.did !== null && reply.sub !== started.did) {
        return yield* fail("auth_expired", "account_mismatch", `the consent was given for ${reply.sub}, not for ${started.did}, the account named at start`)
      }
      // The account's own PDS must answer to the server that issued the tokens.
      const { document, pdsUrl } = yield* pdsOf(reply.sub)
      const server = yield* authorizationServerOf(pdsUrl)
      if (trimmed(server.issuer) !== started.issuer) {
        return yield* fail("auth_expired", "issuer_mismatch", `${reply.sub}'s PDS answers to ${server.issuer}, not to ${started.issuer}, which issued the tokens`)
      }
      const handle = document.alsoKnownAs?.find((alias) => alias.startsWith("at://"))?.slice("at://".length) ?? reply.sub
      return yield* grantOf(reply, handle, {
        dpop_key: started.dpop_key,
        pds_url: pdsUrl,
        issuer: started.issuer,
        token_endpoint: started.token_endpoint,
        client_id: started.client_id
      })
    })

  /** Renews an OAuth session at its token endpoint with its own DPoP key; the refresh token is single-use. */
  const refresh = (credentials: Credentials) =>
    Either.match(Schema.decodeUnknownEither(StoredOAuthSession)(credentials), {
      onLeft: () => Effect.fail(fail("auth_expired", "InvalidToken", "the stored credentials hold no atproto OAuth session; reconnect the account")),
      onRight: (stored) =>
        Effect.flatMap(
          formPost(stored.token_endpoint, { grant_type: "refresh_token", refresh_token: stored.refresh_token, client_id: stored.client_id }, dpopKeyOf(stored.dpop_key), TokenReply),
          (reply) =>
            reply.sub === stored.did
              ? grantOf(reply, stored.handle, stored)
              : Effect.fail(fail("auth_expired", "account_mismatch", `the refresh answered for ${reply.sub}, not ${stored.did}`))
        )
    })

  /** The account behind the tokens, as its PDS says (getSession, DPoP-signed): the DID stays the token's `sub`. */
  const identify: OAuthProvider["identify"] = (credentials) =>
    Effect.gen(function*() {
      const session = yield* sessionOf(credentials)
      const info = yield* asRead(send(anywhere, { kind: "read", request: query("com.atproto.server.getSession", {}, session.auth), reply: SessionInfo }))
      if (info.did !== session.did) {
        return yield* fail("auth_expired", "account_mismatch", `the PDS answered for ${info.did}, not ${session.did}`)
      }
      return { platformAccountId: info.did, username: info.handle }
    })

  return { platform: "bluesky", start, exchange, refresh, identify } satisfies OAuthProvider
}
