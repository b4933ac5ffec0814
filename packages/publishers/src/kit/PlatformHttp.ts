import { HttpClient, HttpClientError, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { OutboundGuard, type OutboundRequest } from "@herald/outbound"
import { Chunk, Context, Duration, Effect, FiberRef, Layer, Stream } from "effect"

/**
 * How long a platform call may take, by what it does: a read (metrics, a probe, a token call),
 * a publish or takedown, or a media upload (bytes in the body, processing polls excluded).
 */
export type CallKind = "read" | "publish" | "upload"

export type Deadlines = { readonly [K in CallKind]: Duration.Duration }

export const deadlines: Deadlines = {
  read: Duration.seconds(15),
  publish: Duration.seconds(30),
  upload: Duration.minutes(5)
}

/**
 * The deadlines `platformClient` gives its clients: `deadlines` unless provided otherwise (a
 * test's fake that never answers should not hold a suite for half a minute).
 */
export class CallDeadlines extends Context.Reference<CallDeadlines>()("@herald/publishers/CallDeadlines", {
  defaultValue: (): Deadlines => deadlines
}) {}

/** The most a platform's reply may weigh; a larger one fails (ResponseTooLarge, a transport error). */
const maxReplyBytes = 8 * 1024 * 1024

/** The deadline of the call running now; set per call kind by `platformClient`. */
const currentDeadline = FiberRef.unsafeMake<Duration.Duration>(deadlines.read)

const bodyBytes = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<
  { readonly bytes: Uint8Array | undefined; readonly contentType: string | undefined },
  HttpClientError.RequestError
> => {
  const body = request.body
  const failed = (description: string) =>
    new HttpClientError.RequestError({ request, reason: "Encode", description })
  switch (body._tag) {
    case "Empty":
      return Effect.succeed({ bytes: undefined, contentType: undefined })
    case "Uint8Array":
      return Effect.succeed({ bytes: body.body, contentType: body.contentType })
    case "Raw":
      return typeof body.body === "string"
        ? Effect.succeed({ bytes: new TextEncoder().encode(body.body), contentType: body.contentType })
        : body.body instanceof Uint8Array
        ? Effect.succeed({ bytes: body.body, contentType: body.contentType })
        : Effect.fail(failed("a raw body must be text or bytes"))
    case "FormData":
      // The web Response encodes multipart with its boundary, as fetch would send it.
      return Effect.tryPromise({
        try: async () => {
          const encoded = new Response(body.formData)
          return {
            bytes: new Uint8Array(await encoded.arrayBuffer()),
            contentType: encoded.headers.get("content-type") ?? undefined
          }
        },
        catch: (cause) => failed(`the form could not be encoded: ${String(cause)}`)
      })
    case "Stream":
      return Stream.runCollect(body.stream).pipe(
        Effect.map((chunks) => ({ bytes: Buffer.concat(Chunk.toArray(chunks)), contentType: body.contentType })),
        Effect.mapError((cause) => failed(`the body stream failed: ${String(cause)}`))
      )
  }
}

const outboundMethod = (request: HttpClientRequest.HttpClientRequest) => {
  switch (request.method) {
    case "GET":
    case "POST":
    case "PUT":
    case "PATCH":
    case "DELETE":
      return request.method
    default:
      return undefined
  }
}

/**
 * `@effect/platform`'s HttpClient over the outbound guard: every platform call is judged by the
 * guard's rules (https, public addresses; loopback only where the guard was built to allow it,
 * never in production), bounded by the deadline of its call kind, and read whole within a cap.
 * Transport failures keep the guard's error as their `cause` (Failures.ts reads it).
 */
export const guardedHttpClient: Effect.Effect<HttpClient.HttpClient, never, OutboundGuard> = Effect.map(
  OutboundGuard,
  (guard) =>
    HttpClient.make((request, url, _signal, fiber) =>
      Effect.gen(function*() {
        const method = outboundMethod(request)
        if (method === undefined) {
          return yield* new HttpClientError.RequestError({
            request,
            reason: "InvalidUrl",
            description: `${request.method} is not a method platform calls use`
          })
        }
        const { bytes, contentType } = yield* bodyBytes(request)
        const headers: Record<string, string> = { ...request.headers }
        if (contentType !== undefined && headers["content-type"] === undefined) headers["content-type"] = contentType
        const common = { url: url.toString(), headers, timeout: fiber.getFiberRef(currentDeadline), maxBytes: maxReplyBytes }
        const outbound: OutboundRequest = method === "GET"
          ? { ...common, method, followRedirects: 0 }
          : method === "POST"
          ? { ...common, method, body: bytes ?? new Uint8Array() }
          : { ...common, method, ...(bytes === undefined ? {} : { body: bytes }) }
        const transportError = (cause: unknown) =>
          new HttpClientError.RequestError({ request, reason: "Transport", cause, description: String(cause) })
        return yield* Effect.scoped(Effect.gen(function*() {
          const response = yield* guard.request(outbound)
          const body = yield* response.body.bytes
          const replyHeaders = new Headers()
          for (const [name, value] of Object.entries(response.headers)) {
            if (value === undefined) continue
            for (const one of Array.isArray(value) ? value : [value]) replyHeaders.append(name, one)
          }
          const noBody = response.status === 204 || response.status === 304 || method === "GET" && response.status === 205
          return HttpClientResponse.fromWeb(
            request,
            new Response(noBody ? null : body, { status: response.status, headers: replyHeaders })
          )
        })).pipe(Effect.mapError(transportError))
      })
    )
)

/** The guarded HttpClient as a layer; needs the OutboundGuard (the app's, or a test's allowing loopback). */
export const PlatformHttpLive: Layer.Layer<HttpClient.HttpClient, never, OutboundGuard> = Layer.effect(
  HttpClient.HttpClient,
  guardedHttpClient
)

/** One platform's clients: requests take paths relative to its base URL, each kind with its deadline. */
export interface PlatformClient {
  readonly read: HttpClient.HttpClient
  readonly publish: HttpClient.HttpClient
  readonly upload: HttpClient.HttpClient
}

const joinBase = (baseUrl: string) => {
  const base = baseUrl.replace(/\/+$/, "")
  return (request: HttpClientRequest.HttpClientRequest): HttpClientRequest.HttpClientRequest =>
    /^[a-z][a-z0-9+.-]*:/i.test(request.url)
      ? request
      : HttpClientRequest.setUrl(request, `${base}/${request.url.replace(/^\/+/, "")}`)
}

/**
 * The HttpClient in context with `baseUrl` before every relative path (an absolute URL, such as
 * an upload URL the platform handed out, is left alone), one client per call kind.
 */
export const platformClient = (baseUrl: string): Effect.Effect<PlatformClient, never, HttpClient.HttpClient> =>
  Effect.zipWith(HttpClient.HttpClient, CallDeadlines, (client, limits) => {
    const based = HttpClient.mapRequest(client, joinBase(baseUrl))
    const withDeadline = (kind: CallKind) =>
      HttpClient.transform(based, (effect) => Effect.locally(effect, currentDeadline, limits[kind]))
    return { read: withDeadline("read"), publish: withDeadline("publish"), upload: withDeadline("upload") }
  })
