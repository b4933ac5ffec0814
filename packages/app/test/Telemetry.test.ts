import { ConfigProvider, Duration, Effect, Option } from "effect"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { telemetryLayer, telemetrySettings } from "../src/Telemetry.js"
import { startHerald, type TestHerald } from "./TestHerald.js"

/** An OTLP/HTTP receiver (JSON encoding), in this process: what the exporter posts to /v1/traces. */
const bodies: Array<string> = []
const receiver = createServer((request: IncomingMessage, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    if (request.method === "POST" && request.url === "/v1/traces") bodies.push(Buffer.concat(chunks).toString("utf8"))
    response.writeHead(200, { "content-type": "application/json" }).end("{}")
  })
})

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: { readonly stringValue?: string; readonly intValue?: string | number } }>
}

const spans = (): Array<OtlpSpan> =>
  bodies.flatMap((body) =>
    JSON.parse(body).resourceSpans.flatMap((resource: { scopeSpans: Array<{ spans: Array<OtlpSpan> }> }) =>
      resource.scopeSpans.flatMap((scope) => scope.spans)))

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value
  return value?.stringValue ?? value?.intValue
}

let herald: TestHerald

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const settings = await Effect.runPromise(telemetrySettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([
    ["OTEL_EXPORTER_OTLP_ENDPOINT", `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`],
    ["OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"],
    ["OTEL_SERVICE_NAME", "herald-telemetry-test"],
    ["OTEL_BSP_SCHEDULE_DELAY", "100"]
  ])))))
  herald = await startHerald({ workers: false, observability: telemetryLayer(settings) })
}, 60_000)

afterAll(async () => {
  await herald?.close()
  await new Promise((resolve) => receiver.close(resolve))
})

describe("OpenTelemetry export over OTLP/HTTP", () => {
  it("reads the endpoint from the standard variables, and is off when none is set", async () => {
    const read = (entries: ReadonlyArray<readonly [string, string]>) =>
      Effect.runPromise(telemetrySettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(entries)))))
    const none = await read([])
    expect(Option.isNone(none.traces) && Option.isNone(none.metrics)).toBe(true)
    const own = await read([["OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"], ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:4318/custom"]])
    expect(own.traces).toEqual(Option.some("http://traces:4318/custom"))
    expect(own.metrics).toEqual(Option.some("http://collector:4318/v1/metrics"))
    expect(own.protocol).toBe("http/protobuf")
    expect(own.exportInterval).toEqual(Duration.millis(5000))
    const off = await read([["OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"], ["OTEL_SDK_DISABLED", "true"]])
    expect(Option.isNone(off.traces)).toBe(true)
    const headers = await read([["OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20abc,x-tenant=acme"]])
    expect(headers.headers).toEqual({ authorization: "Bearer abc", "x-tenant": "acme" })
    await expect(read([["OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"]])).rejects.toThrow(/HTTP only/)
  })

  it("exports a trace for POST /posts: the request span, and the create's transaction inside it", async () => {
    const created = await herald.call("/api/v1/posts", {
      method: "POST",
      token: herald.credentials.human_key,
      // With an idempotency key the create is a transaction (the key's claim and the write).
      json: { caption: "traced", social_accounts: ["x:herald_demo"], idempotency_key: "telemetry-test-1" }
    })
    expect(created.status).toBe(201)
    const requestSpan = async () => {
      for (let tries = 0; tries < 100; tries++) {
        const found = spans().find((span) => span.name === "http.server POST" && attribute(span, "http.route") === "/api/v1/posts")
        if (found !== undefined && spans().some((span) => span.name === "sql.transaction" && span.traceId === found.traceId)) return found
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      throw new Error(`no request span with its transaction among ${spans().map((span) => span.name).join(", ")}`)
    }
    const request = await requestSpan()
    expect(attribute(request, "http.response.status_code")).toBe(201)
    const inTrace = spans().filter((span) => span.traceId === request.traceId)
    const byId = new Map(inTrace.map((span) => [span.spanId, span]))
    const ancestors = (span: OtlpSpan): Array<string> => {
      const parent = span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId)
      return parent === undefined ? [] : [parent.name, ...ancestors(parent)]
    }
    const transaction = inTrace.find((span) => span.name === "sql.transaction")
    expect(transaction).toBeDefined()
    expect(ancestors(transaction!)).toEqual(["PostStore.create", "createPost", "http.server POST"])
    expect(inTrace.some((span) => span.name === "sql.execute" && span.parentSpanId === transaction!.spanId)).toBe(true)
  }, 30_000)

  it("records no key in a span: the MCP key in the path stays out of every attribute", async () => {
    const key = herald.credentials.agent_key
    const reply = await fetch(`${herald.origin}/api/mcp/${key}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    })
    expect(reply.status).toBe(200)
    for (let tries = 0; tries < 100 && !spans().some((span) => attribute(span, "http.route") === "/api/mcp/:key"); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(spans().some((span) => attribute(span, "http.route") === "/api/mcp/:key")).toBe(true)
    for (const secret of [key, herald.credentials.human_key, herald.credentials.admin_token]) {
      expect(bodies.some((body) => body.includes(secret))).toBe(false)
    }
  }, 30_000)
})
