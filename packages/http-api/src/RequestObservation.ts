import { HttpApp, HttpMiddleware, HttpServerRequest, HttpServerResponse, HttpTraceContext } from "@effect/platform"
import { httpRequestDuration, httpRequests, type RequestRecord, withRequestRecord } from "@herald/core"
import { Cause, Context, Effect, Exit, FiberRef, Metric, MetricLabel, Option, type Tracer } from "effect"
import { randomUUID } from "node:crypto"

/** The header a request id comes in and goes back out in. */
export const requestIdHeader = "x-request-id"

/**
 * A request id a client may send: 1 to 128 characters of letters, digits and `._:/+=@-`, enough for
 * UUIDs, ULIDs and the ids proxies and tracing systems make, and nothing a log line must escape.
 */
const requestIdPattern = /^[A-Za-z0-9._:/+=@-]{1,128}$/

const invalidRequestId = HttpServerResponse.unsafeJson({
  error: "X-Request-Id must be 1 to 128 characters of letters, digits and . _ : / + = @ -",
  code: "invalid_request_id",
  violations: [{ field: "X-Request-Id", message: "1 to 128 characters of letters, digits and . _ : / + = @ -" }]
}, { status: 400, headers: { "cache-control": "no-store" } })

/**
 * The route pattern the router matched: HttpRouter writes it on the request's parent span as
 * `http.route`. With the tracer off there is no span, so a span that only keeps that attribute
 * stands in as the parent (the spans under it are the tracer's no-ops).
 */
const routeRecorder = (): Tracer.Span & { route: string | null } => ({
  _tag: "Span",
  name: "http.server",
  spanId: "",
  traceId: "",
  parent: Option.none(),
  context: Context.empty(),
  status: { _tag: "Started", startTime: 0n },
  attributes: new Map(),
  links: [],
  sampled: false,
  kind: "server",
  route: null,
  end() {},
  attribute(key, value) {
    if (key === "http.route" && typeof value === "string") this.route = value
  },
  event() {},
  addLinks() {}
})

const statusOf = (exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>) =>
  Exit.isSuccess(exit) ? exit.value.status : Cause.isInterruptedOnly(exit.cause) ? 499 : 500

/**
 * Every request's observation, outermost in the server: its request id (the client's X-Request-Id
 * when well formed, refused with a 400 when not, else a new UUID; echoed on the reply), its span
 * while the tracer is on (named and tagged by route pattern: the path itself is never recorded,
 * since some paths carry a secret, the MCP key and approval tokens), its counts in the HTTP
 * metrics, and one access-log line: method, route pattern, status, duration in milliseconds, the
 * id of the key that signed it (never the key) and the request id.
 *
 * The platform's own request span records the path (`url.path`, `url.full`), so the server runs
 * with it off (`HttpMiddleware.withTracerDisabledWhen`) and this span in its place.
 */
export const observeRequests = HttpMiddleware.make((app) =>
  Effect.withFiberRuntime((fiber) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    const sent = request.headers[requestIdHeader]
    if (sent !== undefined && !requestIdPattern.test(sent)) return Effect.succeed(invalidRequestId)
    const requestId = sent ?? randomUUID()
    const record: RequestRecord = { keyId: null }
    const started = performance.now()
    const finish = (route: string | null, exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>) => {
      const status = statusOf(exit)
      const durationMs = Math.round((performance.now() - started) * 1000) / 1000
      const labels = [
        MetricLabel.make("method", request.method),
        MetricLabel.make("route", route ?? "unmatched"),
        MetricLabel.make("status", String(status))
      ]
      return Effect.zipRight(
        Effect.all([
          Metric.increment(Metric.taggedWithLabels(httpRequests, labels)),
          Metric.update(Metric.taggedWithLabels(httpRequestDuration, labels), durationMs / 1000),
          Effect.logInfo("request").pipe(Effect.annotateLogs({
            method: request.method,
            route,
            status,
            duration_ms: durationMs,
            key_id: record.keyId,
            request_id: requestId
          }))
        ], { discard: true }),
        exit
      )
    }
    const observed = fiber.getFiberRef(FiberRef.currentTracerEnabled)
      ? Effect.useSpan(`http.server ${request.method}`, {
        kind: "server",
        parent: Option.getOrUndefined(HttpTraceContext.fromHeaders(request.headers)),
        captureStackTrace: false,
        attributes: { "http.request.method": request.method, "http.request.id": requestId }
      }, (span) =>
        Effect.flatMap(Effect.exit(Effect.withParentSpan(app, span)), (exit) => {
          span.attribute("http.response.status_code", statusOf(exit))
          const route = span.attributes.get("http.route")
          return finish(typeof route === "string" ? route : null, exit)
        }))
      : Effect.suspend(() => {
        const recorder = routeRecorder()
        return Effect.flatMap(Effect.exit(Effect.withParentSpan(app, recorder)), (exit) => finish(recorder.route, exit))
      })
    // On the reply before it is written, whatever it is: the server writes it inside `app`.
    const echoed = Effect.zipRight(
      HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeader(response, requestIdHeader, requestId))),
      observed
    )
    return withRequestRecord(record)(echoed)
  })
)

