/**
 * DPoP proofs (RFC 9449) as the atproto OAuth profile asks for them: ES256 keys, a fresh proof per
 * request naming its method and URL (htm, htu), the server's latest nonce, and for resource calls
 * the hash of the access token (ath). The private key is kept as a JWK so that it can travel in
 * the encrypted OAuth state row and then in the account's encrypted credentials: the tokens the
 * authorization server issues are bound to it and useless with any other key.
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject, randomUUID, sign } from "node:crypto"
import { Clock, Effect, Schema } from "effect"

/** An ES256 private key as a JWK (P-256 coordinates x, y and private part d, base64url). */
export const DpopPrivateJwk = Schema.Struct({
  kty: Schema.Literal("EC"),
  crv: Schema.Literal("P-256"),
  x: Schema.String,
  y: Schema.String,
  d: Schema.String
})
export type DpopPrivateJwk = typeof DpopPrivateJwk.Type

export interface DpopKey {
  readonly jwk: DpopPrivateJwk
  /** A proof for one request; `accessToken` for calls to the resource server (adds ath). */
  readonly proof: (request: DpopRequest) => string
}

export interface DpopRequest {
  readonly method: string
  readonly url: string
  readonly nonce?: string | undefined
  readonly accessToken?: string | undefined
  /** Seconds since the epoch; the clock of the caller (tests pin it). */
  readonly now: number
}

const base64url = (value: Buffer | string) => Buffer.from(value).toString("base64url")

/** The `ath` claim: base64url of the SHA-256 of the access token. */
export const accessTokenHash = (accessToken: string) => createHash("sha256").update(accessToken).digest("base64url")

/** The `htu` claim: the request URL without query and fragment (RFC 9449 §4.2). */
const htu = (url: string) => {
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname}`
}

const keyOf = (jwk: DpopPrivateJwk): DpopKey => {
  const privateKey: KeyObject = createPrivateKey({ key: jwk, format: "jwk" })
  const header = base64url(JSON.stringify({ typ: "dpop+jwt", alg: "ES256", jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } }))
  return {
    jwk,
    proof: (request) => {
      const payload = base64url(JSON.stringify({
        jti: randomUUID(),
        htm: request.method.toUpperCase(),
        htu: htu(request.url),
        iat: request.now,
        ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
        ...(request.accessToken === undefined ? {} : { ath: accessTokenHash(request.accessToken) })
      }))
      const signature = sign("sha256", Buffer.from(`${header}.${payload}`), { key: privateKey, dsaEncoding: "ieee-p1363" })
      return `${header}.${payload}.${base64url(signature)}`
    }
  }
}

/** A new DPoP key, one per connection. */
export const generateDpopKey = (): DpopKey => {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  return keyOf(Schema.decodeUnknownSync(DpopPrivateJwk)(privateKey.export({ format: "jwk" })))
}

/** The key kept in the OAuth state or the account's credentials. */
export const dpopKeyOf = (jwk: DpopPrivateJwk): DpopKey => keyOf(jwk)

/**
 * Whether a refusal asks for the call again with the server's nonce: the authorization server says
 * so in the body's `error`, the resource server in WWW-Authenticate.
 */
export const asksForNonce = (status: number, wwwAuthenticate: string | undefined, body: string) =>
  (status === 400 || status === 401) && (body.includes("use_dpop_nonce") || (wwwAuthenticate ?? "").includes("use_dpop_nonce"))

/**
 * The latest `DPoP-Nonce` each server sent, by origin. A server's nonce is good for every key and
 * account it serves, so one process-wide cache serves all; a stale or missing one costs a repeat.
 */
const nonces = new Map<string, string>()

/**
 * Sends `request` (an absolute URL) with a fresh DPoP proof of `key`, and `Authorization: DPoP`
 * when `accessToken` is given (a resource call, whose proof carries `ath`). A refusal asking for
 * the server's nonce (`use_dpop_nonce`) is answered by the same request once more with it.
 */
export const dpopExecute = (
  http: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  key: DpopKey,
  accessToken?: string
) => {
  const origin = new URL(request.url).origin
  const once = Effect.gen(function*() {
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const proof = key.proof({ method: request.method, url: request.url, nonce: nonces.get(origin), accessToken, now })
    const signed = HttpClientRequest.setHeader(request, "DPoP", proof)
    const response = yield* http.execute(
      accessToken === undefined ? signed : HttpClientRequest.setHeader(signed, "authorization", `DPoP ${accessToken}`)
    )
    const nonce = response.headers["dpop-nonce"]
    if (nonce !== undefined && nonce !== "") nonces.set(origin, nonce)
    return response
  })
  return Effect.flatMap(once, (response) =>
    response.status !== 400 && response.status !== 401
      ? Effect.succeed(response)
      : Effect.flatMap(
        Effect.orElseSucceed(response.text, () => ""),
        (body) => asksForNonce(response.status, response.headers["www-authenticate"], body) ? once : Effect.succeed(response)
      ))
}
