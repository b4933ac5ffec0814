import { HttpApi, HttpMethod, HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Redacted, Stream } from "effect"
import { hashApiKey } from "../ApiKeys.js"
import { BadRequest, PayloadTooLarge, Unauthorized, UnsupportedMediaType } from "../HttpErrors.js"
import { AdminAuthentication, AdminBodyGuard, HeraldAdminApi } from "./AdminApi.js"
import { adminTokenPattern, AdminTokens } from "./AdminTokens.js"

const refuse = (code: "missing_admin_token" | "invalid_admin_token", error: string) =>
  Effect.fail(new Unauthorized({ error, code }))

/** The bearer admin token, looked up by its SHA-256 (nothing secret is compared, so no timing oracle). */
export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  Effect.map(AdminTokens, (tokens) =>
    AdminAuthentication.of({
      adminToken: (presented) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const header = request.headers.authorization?.trim() ?? ""
          if (header === "") return yield* refuse("missing_admin_token", "missing admin token: send Authorization: Bearer <admin token>")
          const token = Redacted.value(presented).trim()
          if (!/^bearer\s/i.test(header) || !adminTokenPattern.test(token)) {
            return yield* refuse("invalid_admin_token", "invalid admin token")
          }
          if (!(yield* tokens.isKnown(hashApiKey(token)))) return yield* refuse("invalid_admin_token", "invalid admin token")
        })
    }))
)

/** Admin bodies are small JSON documents. */
export const adminBodyLimit = 64 * 1024

const malformed = (error: string) => new BadRequest({ error, code: "malformed_body" })

/** The same request with the checked bytes as its body (the original stream is spent by now). */
const withBody = (request: HttpServerRequest.HttpServerRequest, text: string) =>
  HttpServerRequest.fromWeb(
    new Request(new URL(request.url, "http://herald.internal"), {
      method: request.method,
      headers: Object.entries(request.headers).filter(([name]) => name !== "content-length" && name !== "transfer-encoding"),
      body: text
    })
  )

/** "METHOD /path/:param" of every admin endpoint that takes a body, read off the API itself. */
const endpointsWithBody = (): ReadonlySet<string> => {
  const found = new Set<string>()
  HttpApi.reflect(HeraldAdminApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, payloads }) => {
      if (HttpMethod.hasBody(endpoint.method) && payloads.size > 0) found.add(`${endpoint.method} ${endpoint.path}`)
    }
  })
  return found
}

interface Read {
  readonly chunks: Array<Uint8Array>
  readonly size: number
}

/**
 * Reads the body of an endpoint that takes one before it is decoded, so malformed input is a
 * 400/413/415 with a reason rather than a failure deep in decoding.
 */
export const AdminBodyGuardLive = Layer.sync(AdminBodyGuard, () => {
  const withBodies = endpointsWithBody()
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { route } = yield* HttpRouter.RouteContext
    if (!withBodies.has(`${request.method} ${route.path}`)) return request
    const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
    if (type !== "application/json") {
      return yield* Effect.fail(
        new UnsupportedMediaType({ error: "send Content-Type: application/json", code: "unsupported_media_type" })
      )
    }
    const tooLarge = new PayloadTooLarge({ error: `the request body is larger than ${adminBodyLimit} bytes`, code: "body_too_large" })
    if (Number(request.headers["content-length"] ?? "0") > adminBodyLimit) return yield* Effect.fail(tooLarge)
    const { chunks } = yield* Stream.runFoldEffect(request.stream, { chunks: [], size: 0 } as Read, (read: Read, chunk: Uint8Array) => {
      read.chunks.push(chunk)
      const size = read.size + chunk.length
      return size > adminBodyLimit ? Effect.fail(tooLarge) : Effect.succeed({ chunks: read.chunks, size })
    }).pipe(Effect.mapError((error) => error instanceof PayloadTooLarge ? error : malformed("the request body could not be read")))
    const text = yield* Effect.try({
      try: () => new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)),
      catch: () => malformed("the request body is not valid UTF-8")
    })
    if (text.trim() === "") return yield* Effect.fail(new BadRequest({ error: "the request body is empty; send JSON", code: "invalid_request" }))
    yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (error) => malformed(`the request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`)
    })
    return withBody(request, text)
  })
})
