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

export interface XrpcCall<A, I> {
  readonly kind: CallKind
  readonly request: HttpClientRequest.HttpClientRequest
  readonly reply: Schema.Schema<A, I>
}

/** Sends the call with the client of its kind and reads the reply by the lexicon's schema. */
export const send = <A, I>(client: PlatformClient, call: XrpcCall<A, I>): Effect.Effect<A, PlatformCallError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const http: HttpClient.HttpClient = client[call.kind]
      const response = yield* http.execute(call.request)
      if (response.status >= 300) return yield* Effect.flip(refusal(response, classify))
      return yield* Schema.decodeUnknown(call.reply)(yield* response.json)
    })
  )

const path = (nsid: string) => `xrpc/${nsid}`

const withToken = (token: string | undefined) => (request: HttpClientRequest.HttpClientRequest) =>
  token === undefined ? request : HttpClientRequest.bearerToken(request, token)

/** A query (GET) with URL parameters. */
export const query = (nsid: string, params: Record<string, string | ReadonlyArray<string>>, token?: string) =>
  HttpClientRequest.get(path(nsid)).pipe(HttpClientRequest.setUrlParams(params), withToken(token))

/** A procedure (POST) with a JSON body, or none (undefined). */
export const procedure = (nsid: string, body: unknown, token?: string) =>
  HttpClientRequest.post(path(nsid)).pipe(
    body === undefined ? (request) => request : HttpClientRequest.bodyUnsafeJson(body),
    withToken(token)
  )

/** A procedure (POST) whose body is raw bytes of the given type (uploadBlob). */
export const upload = (nsid: string, bytes: Uint8Array, mime: string, token: string) =>
  HttpClientRequest.post(path(nsid)).pipe(HttpClientRequest.bodyUint8Array(bytes, mime), withToken(token))
