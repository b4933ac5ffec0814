import { describe, expect, it } from "@effect/vitest"
import { ProjectId, WebhookEndpointId, WebhookTestEvents } from "@herald/core"
import { OutboundGuard } from "@herald/outbound"
import { receiver, selfSigned } from "@herald/outbound/testing"
import { Effect, Either, Layer, Option, Redacted } from "effect"
import { verify, WebhookTestEventsLive } from "../src/index.js"

const tls = selfSigned()
const secret = "whsec_test_event"
const project = { id: ProjectId.make("5e0a4c2b-1f3d-4e6a-8b7c-9d0e1f2a3b4c"), name: "Acme" }
const endpointId = WebhookEndpointId.make("a1a1a1a1-0000-4000-8000-000000000001")

const testEvents = WebhookTestEventsLive.pipe(Layer.provide(OutboundGuard.layer({
  allowLoopback: true,
  production: false,
  ca: tls.cert,
  resolveHost: async () => [{ address: "127.0.0.1", family: 4 }]
})))

const sendTo = (url: string) =>
  Effect.flatMap(WebhookTestEvents, (events) => events.send({ endpointId, url, secrets: { current: Redacted.make(secret), previous: Option.none() } }, project))

describe("WebhookTestEventsLive", () => {
  it.scopedLive("sends one webhook.test event signed with the endpoint's secret, a fresh delivery id each time", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      const first = yield* sendTo(`${server.origin}/hook`)
      const second = yield* sendTo(`${server.origin}/hook`)
      expect(first).toMatchObject({ statusCode: 200, responsePrefix: "ok", error: null })
      expect(second.deliveryId).not.toBe(first.deliveryId)
      const [delivery] = server.received
      const verified = verify(delivery!.rawBody, delivery!.headers, secret)
      expect(Either.isRight(verified)).toBe(true)
      expect(delivery!.headers["x-service-event"]).toBe("webhook.test")
      expect(delivery!.headers["x-service-delivery"]).toBe(first.deliveryId)
      expect(JSON.parse(delivery!.rawBody.toString("utf8"))).toMatchObject({
        event: "webhook.test",
        delivery_id: first.deliveryId,
        project: { id: project.id, name: "Acme" },
        data: { webhook_id: endpointId }
      })
    }).pipe(Effect.provide(testEvents)))

  it.scopedLive("answers what a refusing endpoint said, and why nothing came from an unreachable one", () =>
    Effect.gen(function*() {
      const server = yield* receiver(tls)
      expect(yield* sendTo(`${server.origin}/fail`)).toMatchObject({
        statusCode: 500,
        responsePrefix: "boom",
        error: "the endpoint answered 500"
      })
      const refused = yield* sendTo("https://10.0.0.1/hook")
      expect(refused.statusCode).toBeNull()
      expect(refused.error).toEqual(expect.any(String))
    }).pipe(Effect.provide(testEvents)))
})
