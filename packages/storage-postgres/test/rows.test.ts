import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { deliveryColumns, deliveryFromRow, type DeliveryRow, postColumns, postFromRow, type PostRow } from "../src/Rows.js"
import { newPost, newProject, t0 } from "./fixtures.js"

const { record } = newPost({ projectId: newProject().id, deliveryStatus: "queued", dueAt: t0 })
// Plain: no platform configuration, so the post's row is one the schema pass is skipped for.
const post = record.post.with({ platformConfigurations: {} })
const delivery = record.deliveries[0]!
const at = t0

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
      decision: { outcome: "approved", via: "api_key", by: post.author.keyId, byName: "approver", surface: "sdk", at, reason: null, channel: null },
      platformConfigurations: { x: { reply_settings: "everyone" } }
    })
    const tried = delivery.with({
      status: "queued",
      error: { category: "transient", code: "boom", message: "down" },
      attempts: [{ number: 1, startedAt: at, finishedAt: at, outcome: "failed", error: { category: "transient", code: "boom", message: "down" } }]
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
