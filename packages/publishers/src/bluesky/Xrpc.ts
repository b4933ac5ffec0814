/**
 * XRPC over HTTP (https://atproto.com/specs/xrpc): queries are GETs with URL parameters,
 * procedures POSTs with a JSON or raw body, both under /xrpc/<nsid> of the PDS. A refusal
 * carries the error envelope `{ error, message }` (BlueskyErrors.ts reads it); the kit's client
 * adds the base URL and the deadline of the call's kind.
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Schema } from "effect"
import { type CallKind, type PlatformCallError, type PlatformClient, refusal } from "../kit/index.js"
import { classify } from "./BlueskyErrors.js"
import { type DpopKey, dpopExecute } from "./Dpop.js"

/**
 * How a call is authorised: an app-password session's JWT as a Bearer token (to the configured
 * base URL), or an OAuth access token bound to a DPoP key, sent to the account's own PDS with a
 * fresh proof per request.
 */
export type XrpcAuth =
  | { readonly scheme: "Bearer"; readonly token: string }
  | { readonly scheme: "DPoP"; readonly token: string; readonly key: DpopKey; readonly pdsUrl: string }

export interface XrpcRequest {
  /** The request, its URL relative to the PDS (xrpc/<nsid>). */
  readonly http: HttpClientRequest.HttpClientRequest
  readonly auth: XrpcAuth | undefined
}

export interface XrpcCall<A, I> {
  readonly kind: CallKind
  readonly request: XrpcRequest
  readonly reply: Schema.Schema<A, I>
}

const execute = (http: HttpClient.HttpClient, { auth, http: request }: XrpcRequest) => {
  if (auth === undefined) return http.execute(request)
  if (auth.scheme === "Bearer") return http.execute(HttpClientRequest.bearerToken(request, auth.token))
  return dpopExecute(http, HttpClientRequest.setUrl(request, `${auth.pdsUrl.replace(/\/+$/, "")}/${request.url}`), auth.key, auth.token)
}

/** Sends the call with the client of its kind and reads the reply by the lexicon's schema. */
export const send = <A, I>(client: PlatformClient, call: XrpcCall<A, I>): Effect.Effect<A, PlatformCallError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const response = yield* execute(client[call.kind], call.request)
      if (response.status >= 300) return yield* Effect.flip(refusal(response, classify))
      return yield* Schema.decodeUnknown(call.reply)(yield* response.json)
    })
  )

const path = (nsid: string) => `xrpc/${nsid}`

/** A query (GET) with URL parameters. */
export const query = (nsid: string, params: Record<string, string | ReadonlyArray<string>>, auth?: XrpcAuth): XrpcRequest => ({
  http: HttpClientRequest.get(path(nsid)).pipe(HttpClientRequest.setUrlParams(params)),
  auth
})

/** A procedure (POST) with a JSON body, or none (undefined). */
export const procedure = (nsid: string, body: unknown, auth?: XrpcAuth): XrpcRequest => ({
  http: body === undefined ? HttpClientRequest.post(path(nsid)) : HttpClientRequest.post(path(nsid)).pipe(HttpClientRequest.bodyUnsafeJson(body)),
  auth
})

/** A procedure (POST) whose body is raw bytes of the given type (uploadBlob). */
export const upload = (nsid: string, bytes: Uint8Array, mime: string, auth: XrpcAuth): XrpcRequest => ({
  http: HttpClientRequest.post(path(nsid)).pipe(HttpClientRequest.bodyUint8Array(bytes, mime)),
  auth
})
