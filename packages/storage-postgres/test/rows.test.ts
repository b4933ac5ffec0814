import { describe, expect, it } from "@effect/vitest"
import { AccountId, ApiKeyId, Delivery, DeliveryId, Post, PostId, ProjectId } from "@herald/core"
import { DateTime, Either } from "effect"
import { deliveryColumns, deliveryFromRow, type DeliveryRow, postColumns, postFromRow, type PostRow } from "../src/Rows.js"

const at = DateTime.unsafeMake("2026-03-01T09:00:00.000Z")

const post = new Post({
  id: PostId.make("11111111-1111-4111-8111-111111111111"),
  projectId: ProjectId.make("22222222-2222-4222-8222-222222222222"),
  version: 1,
  status: "scheduled",
  caption: "hello",
  signature: "",
  skipSignature: false,
  accountIds: [AccountId.make("33333333-3333-4333-8333-333333333333")],
  mediaIds: [],
  scheduledAt: at,
  platformConfigurations: {},
  author: { keyId: ApiKeyId.make("44444444-4444-4444-8444-444444444444"), kind: "human" },
  decision: null,
  supersedes: null,
  supersededBy: null,
  idempotencyKey: null,
  createdAt: at,
  updatedAt: at
})

const delivery = new Delivery({
  id: DeliveryId.make("55555555-5555-4555-8555-555555555555"),
  postId: post.id,
  projectId: post.projectId,
  accountId: post.accountIds[0]!,
  platform: "x",
  username: "acme",
  status: "queued",
  dueAt: at,
  url: null,
  platformPostId: null,
  error: null,
  note: null,
  attempts: [],
  takedown: null,
  createdAt: at,
  updatedAt: at
})

/** A row as PostgreSQL hands it back: JSONB parsed, timestamps as strings (json_agg) or Dates. */
const asRow = <A>(columns: object): A => JSON.parse(JSON.stringify(columns)) as A

describe("rows", () => {
  it("plain rows (literal columns, JSONB valid as it is) decode to what the schema gives", () => {
    const postRow = asRow<PostRow>(postColumns(post))
    const deliveryRow = asRow<DeliveryRow>(deliveryColumns(delivery, 0))
    expect(Either.getOrThrow(postFromRow(postRow))).toEqual(post)
    expect(Either.getOrThrow(deliveryFromRow(deliveryRow))).toEqual(delivery)
  })

  it("rows with more in their JSONB go through the schema, which decodes it", () => {
    const decided = post.with({
      decision: { outcome: "approved", via: "api_key", by: post.author.keyId, at, reason: null },
      platformConfigurations: { x: { reply_settings: "everyone" } }
    })
    const tried = delivery.with({
      status: "queued",
      error: { category: "platform_error", code: "boom", message: "down" },
      attempts: [{ number: 1, startedAt: at, finishedAt: at, outcome: "failed", error: { category: "platform_error", code: "boom", message: "down" } }]
    })
    expect(Either.getOrThrow(postFromRow(asRow<PostRow>(postColumns(decided))))).toEqual(decided)
    expect(Either.getOrThrow(deliveryFromRow(asRow<DeliveryRow>(deliveryColumns(tried, 0))))).toEqual(tried)
  })

  it("a row with a value its column cannot hold is a ParseError, never a wrong value", () => {
    expect(Either.isLeft(postFromRow({ ...asRow<PostRow>(postColumns(post)), status: "lost" }))).toBe(true)
    expect(Either.isLeft(postFromRow({ ...asRow<PostRow>(postColumns(post)), platform_configurations: [] }))).toBe(true)
    expect(Either.isLeft(deliveryFromRow({ ...asRow<DeliveryRow>(deliveryColumns(delivery, 0)), platform: "myspace" }))).toBe(true)
    expect(Either.isLeft(deliveryFromRow({ ...asRow<DeliveryRow>(deliveryColumns(delivery, 0)), attempts: {} }))).toBe(true)
    expect(Either.isLeft(deliveryFromRow({ ...asRow<DeliveryRow>(deliveryColumns(delivery, 0)), error: { code: 1 } }))).toBe(true)
  })
})
