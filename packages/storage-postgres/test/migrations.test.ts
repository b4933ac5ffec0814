import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { type FailureCategory, PostStore, toReceiptEntry } from "@herald/core"
import { Effect, Layer } from "effect"
import deliveryErrorCategories from "../src/migrations/0011_delivery_error_categories.js"
import { newPost, newProject, storageOnThrowawaySchema } from "./fixtures.js"

const url = process.env.DATABASE_URL ?? ""

describe.skipIf(url === "")("migration 0011 on PostgreSQL (needs DATABASE_URL)", () => {
  // Built only when the suite runs: without a URL there is no schema to make.
  layer(Layer.suspend(() => storageOnThrowawaySchema(url)), { timeout: 30_000 })((it) => {
    it.effect("maps each stored category to its finer one, and receipts still show the old one", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const store = yield* PostStore
        // What deliveries stored before the migration: [old category, code, the category it becomes].
        const stored: ReadonlyArray<readonly [FailureCategory, string, string]> = [
          ["auth_expired", "token_expired", "auth_expired"],
          ["content_rejected", "guardrail_blocked", "content_rejected"],
          ["media_invalid", "media_missing", "media_rejected"],
          ["rate_limited", "rate_limited", "rate_limited"],
          ["platform_error", "platform_unavailable", "transient"],
          ["platform_error", "network_unreachable", "transient"],
          ["platform_error", "account_restricted", "permission_missing"],
          ["platform_error", "route_unavailable", "permission_missing"],
          ["platform_error", "not_found", "not_found"],
          ["unknown", "outcome_unknown", "outcome_unknown"]
        ]
        const input = newPost({ projectId: newProject().id, deliveries: stored.length, deliveryStatus: "failed" })
        yield* store.create(input)
        const at = "2030-01-01T00:00:00.000Z"
        yield* Effect.forEach(input.record.deliveries, (delivery, index) => {
          const [category, code] = stored[index]!
          const error = { category, code, message: `was ${category}` }
          const attempts = [
            { number: 1, startedAt: at, finishedAt: at, outcome: "failed", error },
            { number: 2, startedAt: at, finishedAt: null, outcome: null, error: null }
          ]
          return sql`UPDATE deliveries SET error = ${JSON.stringify(error)}::jsonb, attempts = ${JSON.stringify(attempts)}::jsonb WHERE id = ${delivery.id}`
        }, { discard: true })

        yield* deliveryErrorCategories
        const record = yield* Effect.flatMap(store.find(input.record.post.projectId, input.record.post.id), Effect.orDieWith(() => "post gone"))
        for (const [index, [category, code, finer]] of stored.entries()) {
          const delivery = record.deliveries.find((candidate) => candidate.id === input.record.deliveries[index]!.id)!
          expect(delivery.error, code).toEqual({ category: finer, code, message: `was ${category}` })
          expect(delivery.attempts.map((attempt) => attempt.error?.category ?? null), code).toEqual([finer, null])
          const row = toReceiptEntry(delivery)
          expect(row.error?.category, code).toBe(category)
          expect(row.error_category, code).toBe(finer)
        }
      }))
  })
})
