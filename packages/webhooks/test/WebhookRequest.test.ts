import { describe, expect, it } from "@effect/vitest"
import { EventId, OutboxEvent, ProjectId, WebhookEndpointId } from "@herald/core"
import { DateTime } from "effect"
import { deliveryIdFor, makeWebhookRequest, verify, webhookHeaders } from "../src/index.js"

const event = new OutboxEvent({
  id: EventId.make("0b7d8c1e-5a39-4f4f-9c1e-0d3b6f2a7e10"),
  projectId: ProjectId.make("5e0a4c2b-1f3d-4e6a-8b7c-9d0e1f2a3b4c"),
  kind: "post.published",
  createdAt: DateTime.unsafeMake("2026-03-01T12:00:00Z"),
  data: { post: { id: "p1", caption: "hi", status: "published", delivered: 1, targets: 1 }, deliveries: [] }
})
const project = { id: event.projectId, name: "Acme" }
const endpointA = WebhookEndpointId.make("a1a1a1a1-0000-4000-8000-000000000001")
const endpointB = WebhookEndpointId.make("b2b2b2b2-0000-4000-8000-000000000002")

describe("deliveryIdFor", () => {
  it("is the RFC 9562 UUID v5 of the endpoint id in the event id's namespace", () => {
    // Python: uuid.uuid5(uuid.NAMESPACE_DNS, "www.example.com")
    const dns = EventId.make("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
    expect(deliveryIdFor(dns, "www.example.com" as WebhookEndpointId)).toBe("2ed6657d-e927-568b-95e1-2665a8aea6a2")
  })

  it("is stable per (event, endpoint) and differs between endpoints", () => {
    expect(deliveryIdFor(event.id, endpointA)).toBe(deliveryIdFor(event.id, endpointA))
    expect(deliveryIdFor(event.id, endpointA)).not.toBe(deliveryIdFor(event.id, endpointB))
    expect(deliveryIdFor(event.id, endpointA)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})

describe("makeWebhookRequest", () => {
  it("builds the contract's body with created_at in UTC milliseconds", () => {
    const request = makeWebhookRequest(event, project, endpointA)
    expect(JSON.parse(request.body)).toEqual({
      event: "post.published",
      delivery_id: deliveryIdFor(event.id, endpointA),
      created_at: "2026-03-01T12:00:00.000Z",
      project: { id: event.projectId, name: "Acme" },
      data: event.data
    })
    expect(Object.keys(JSON.parse(request.body))).toEqual(["event", "delivery_id", "created_at", "project", "data"])
  })

  it("signs each attempt at its own timestamp over the same body", () => {
    const request = makeWebhookRequest(event, project, endpointA)
    const first = webhookHeaders(request, ["s3cret"], 1_772_366_400)
    const retry = webhookHeaders(request, ["s3cret"], 1_772_366_460)
    expect(first["x-service-delivery"]).toBe(retry["x-service-delivery"])
    expect(first["x-service-signature"]).not.toBe(retry["x-service-signature"])
    expect(first).toMatchObject({ "x-service-event": "post.published", "x-service-timestamp": "1772366400" })
    expect(verify(request.body, retry, "s3cret", { now: 1_772_366_460_000 })._tag).toBe("Right")
  })
})
