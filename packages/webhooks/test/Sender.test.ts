import { createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { EventId, OutboxEvent, ProjectId, WebhookEndpointId } from "@herald/core"
import { DateTime, Effect, Either, Option } from "effect"
import { OutboundGuard } from "@herald/outbound"
import { receiver, selfSigned } from "@herald/outbound/testing"
import { EndpointVerdict, makeWebhookRequest, send, verify } from "../src/index.js"

const tls = selfSigned()
const secret = "whsec_sender_test"

const request = makeWebhookRequest(
  new OutboxEvent({
    id: EventId.make("0b7d8c1e-5a39-4f4f-9c1e-0d3b6f2a7e10"),
    projectId: ProjectId.make("5e0a4c2b-1f3d-4e6a-8b7c-9d0e1f2a3b4c"),
    kind: "post.published",
    createdAt: DateTime.unsafeMake("2026-03-01T12:00:00.123Z"),
    data: {
      post: { id: "9f8e7d6c-0000-4000-8000-000000000001", caption: "Launch day ✨", status: "published", delivered: 1, targets: 1 },
      deliveries: [{ platform: "x", username: "acme", status: "success", url: "https://x.com/acme/status/1", error: null }]
    }
  }),
  { id: ProjectId.make("5e0a4c2b-1f3d-4e6a-8b7c-9d0e1f2a3b4c"), name: "Acme" },
  WebhookEndpointId.make("a1a1a1a1-0000-4000-8000-000000000001")
)

const guard = OutboundGuard.layer({
  allowLoopback: true,
  production: false,
  ca: tls.cert,
  resolveHost: async (hostname) => {
    if (hostname !== "receiver.test") throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
    return [{ address: "127.0.0.1", family: 4 }]
  }
})

const reasonOf = (outcome: EndpointVerdict) =>
  EndpointVerdict.$match(outcome, { Accepted: () => "accepted", Rejected: ({ reason }) => reason })

describe("send", () => {
  it.scopedLive("delivers a signed request that both the exported verifier and node:crypto accept", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      const result = yield* send({ url: `${server.origin}/hook`, secret }, request)
      expect(result.outcome).toEqual(EndpointVerdict.Accepted())
      expect(result.status).toEqual(Option.some(200))
      expect(result.bodyPrefix).toBe("ok")
      expect(result.latencyMs).toBeGreaterThanOrEqual(0)

      expect(server.hits("/hook")).toBe(1)
      const [delivery] = server.received
      const { headers, rawBody } = delivery!
      expect(rawBody.toString("utf8")).toBe(request.body)
      expect(headers["x-service-event"]).toBe("post.published")
      expect(headers["x-service-delivery"]).toBe(request.deliveryId)
      expect(headers["content-type"]).toBe("application/json")

      const timestamp = String(headers["x-service-timestamp"])
      expect(timestamp).toMatch(/^\d+$/)
      expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(5)
      const independent = createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest("hex")
      expect(headers["x-service-signature"]).toBe(`v1=${independent}`)

      const verified = verify(rawBody, headers, secret)
      expect(verified).toEqual(Either.right({ event: "post.published", deliveryId: request.deliveryId, timestamp: Number(timestamp) }))
      expect(Either.isLeft(verify(Buffer.concat([rawBody, Buffer.from(" ")]), headers, secret))).toBe(true)
      expect(JSON.parse(rawBody.toString()).created_at).toBe("2026-03-01T12:00:00.123Z")
    }).pipe(Effect.provide(guard)))

  it.scopedLive("reuses the delivery id on a retry and signs it afresh", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      yield* send({ url: `${server.origin}/hook`, secret }, request)
      yield* send({ url: `${server.origin}/hook`, secret: ["old secret", secret] }, request)
      const [first, retry] = server.received
      expect(retry!.headers["x-service-delivery"]).toBe(first!.headers["x-service-delivery"])
      expect(String(retry!.headers["x-service-signature"]).split(" ")).toHaveLength(2)
      expect(verify(retry!.rawBody, retry!.headers, "old secret")._tag).toBe("Right")
      expect(verify(retry!.rawBody, retry!.headers, secret)._tag).toBe("Right")
    }).pipe(Effect.provide(guard)))

  it.scopedLive("reports a 500 as not accepted, with the status and the reply's first bytes", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      const result = yield* send({ url: `${server.origin}/fail`, secret }, request)
      expect(reasonOf(result.outcome)).toBe("the endpoint answered 500")
      expect(result.status).toEqual(Option.some(500))
      expect(result.bodyPrefix).toBe("boom")
    }).pipe(Effect.provide(guard)))

  it.scopedLive("does not follow a redirect: the 302 is not accepted and its target is never hit", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      const result = yield* send({ url: `${server.origin}/redirect`, secret }, request)
      expect(reasonOf(result.outcome)).toBe("the endpoint answered 302, a redirect, and redirects are not followed")
      expect(result.status).toEqual(Option.some(302))
      expect(server.hits("/redirect")).toBe(1)
      expect(server.hits("/target")).toBe(0)
    }).pipe(Effect.provide(guard)))

  it.scopedLive("reports a receiver that never answers as timed out", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      const result = yield* send({ url: `${server.origin}/hang`, secret }, request, { timeout: "300 millis" })
      expect(reasonOf(result.outcome)).toBe(`${"receiver.test"}:${server.port} did not answer within 300 ms`)
      expect(result.status).toEqual(Option.none())
      expect(result.latencyMs).toBeGreaterThanOrEqual(290)
      expect(server.hits("/hang")).toBe(1)
    }).pipe(Effect.provide(guard)))

  it.scopedLive("keeps only the first 512 bytes of a long reply", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      const result = yield* send({ url: `${server.origin}/long-reply`, secret }, request)
      expect(result.outcome).toEqual(EndpointVerdict.Accepted())
      expect(result.bodyPrefix).toBe("y".repeat(512))
    }).pipe(Effect.provide(guard)))

  it.scopedLive("refuses private, metadata and plain-http destinations before connecting", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      const strict = OutboundGuard.layer({ allowLoopback: false, production: false, ca: tls.cert })
      const reasons = yield* Effect.forEach(
        ["https://10.0.0.1/hook", "https://169.254.169.254/hook", `https://127.0.0.1:${server.port}/hook`, "http://example.com/hook"],
        (url) => send({ url, secret }, request).pipe(Effect.map((result) => reasonOf(result.outcome)))
      ).pipe(Effect.provide(strict))
      expect(reasons).toEqual([
        "outbound request refused: 10.0.0.1 is a private address",
        "outbound request refused: 169.254.169.254 is the cloud metadata address",
        "outbound request refused: 127.0.0.1 is a loopback address",
        "outbound request refused: example.com is reached over http; only https is allowed"
      ])
      expect(server.received).toEqual([])
    }))
})
