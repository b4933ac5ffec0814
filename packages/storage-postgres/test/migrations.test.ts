import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { type FailureCategory, PostStore, provenanceOf, toReceiptEntry } from "@herald/core"
import { publishedPost } from "@herald/core/storage-contract"
import { DateTime, Effect, Layer } from "effect"
import deliveryErrorCategories from "../src/migrations/0011_delivery_error_categories.js"
import deliveryMetrics from "../src/migrations/0014_delivery_metrics.js"
import analyticsRollups from "../src/migrations/0016_analytics_rollups.js"
import provenance from "../src/migrations/0018_provenance.js"
import metricsHistory from "../src/migrations/0046_metrics_history.js"
import approvalMessageHolds from "../src/migrations/0047_approval_message_holds.js"
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

describe.skipIf(url === "")("migration 0014 on PostgreSQL (needs DATABASE_URL)", () => {
  layer(Layer.suspend(() => storageOnThrowawaySchema(url)), { timeout: 30_000 })((it) => {
    it.effect("takes in the deliveries that went out before it, with their publishing time and format; taken down ones deleted", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const store = yield* PostStore
        // The schema as it was before 0014 (and 0016, which builds on it).
        yield* sql.unsafe(`
          DROP TRIGGER deliveries_track_metrics_insert ON deliveries;
          DROP FUNCTION herald_track_inserted_deliveries(), herald_take_in_deliveries(uuid[]), herald_metrics_rows_changed() CASCADE;
          DROP TABLE metrics_hours, metrics_post_cells, metrics_posts CASCADE;
          DROP FUNCTION herald_metrics_refresh(uuid[]);
          DROP TRIGGER deliveries_track_metrics ON deliveries;
          DROP FUNCTION herald_track_delivery_metrics();
          DROP TABLE metric_snapshots, metrics_platform_pauses, delivery_metrics;
          CREATE TABLE metric_snapshots (delivery_id uuid NOT NULL, taken_at timestamptz NOT NULL, metrics jsonb NOT NULL)`)
        const project = newProject()
        const publishedAt = DateTime.unsafeMake("2030-02-03T04:05:06.000Z")
        const input = publishedPost(project.id, [
          { platform: "instagram", placement: "reels", publishedAt },
          { platform: "x", status: "taken_down", publishedAt }
        ])
        yield* store.create(input)
        // Changed since (a takedown, say): the publishing time is still the successful attempt's.
        yield* sql`UPDATE deliveries SET updated_at = updated_at + interval '1 day' WHERE post_id = ${input.record.post.id}`

        yield* deliveryMetrics
        const rows = yield* sql<{ readonly platform: string; readonly format: string; readonly published_at: Date; readonly unreportable_reason: string | null }>`
          SELECT platform, format, published_at, unreportable_reason FROM delivery_metrics WHERE post_id = ${input.record.post.id} ORDER BY position`
        expect(rows.map((row) => [row.platform, row.format, row.published_at.toISOString(), row.unreportable_reason])).toEqual([
          ["instagram", "reel", "2030-02-03T04:05:06.000Z", null],
          ["x", "feed", "2030-02-03T04:05:06.000Z", "deleted"]
        ])

        // 0016 builds the roll-ups of what 0014 took in.
        yield* analyticsRollups
        const [hours] = yield* sql<{ readonly posts: number; readonly deliveries: number; readonly unreportable: number }>`
          SELECT sum(posts)::int AS posts, sum(deliveries)::int AS deliveries, sum(unreportable)::int AS unreportable
          FROM metrics_hours WHERE project_id = ${project.id} AND platform = '*' AND format = '*'`
        expect(hours).toEqual({ posts: 1, deliveries: 2, unreportable: 1 })
      }))
  })
})

describe.skipIf(url === "")("migration 0018 on PostgreSQL (needs DATABASE_URL)", () => {
  layer(Layer.suspend(() => storageOnThrowawaySchema(url)), { timeout: 30_000 })((it) => {
    it.effect("rows written before it read as unknown provenance; an edit chain's creator is recovered from its first version", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const store = yield* PostStore
        const projectId = newProject().id
        const first = newPost({ projectId, kind: "agent" })
        const edit = newPost({ projectId, kind: "human" })
        yield* store.create(first)
        yield* store.create(edit)
        const at = "2030-01-01T00:00:00.000Z"
        // As 0018 found them: no provenance columns, an edit pointing at its first version, a
        // decision and a takedown in the JSONB shape of before.
        yield* sql`UPDATE posts SET supersedes = ${first.record.post.id},
          decision = ${JSON.stringify({ outcome: "approved", via: "api_key", by: edit.record.post.author.keyId, at, reason: null })}::jsonb
          WHERE id = ${edit.record.post.id}`
        yield* sql`UPDATE deliveries SET status = 'taken_down', takedown = ${JSON.stringify({ by: edit.record.post.author.keyId, at })}::jsonb
          WHERE id = ${edit.record.deliveries[0]!.id}`
        yield* sql.unsafe(`ALTER TABLE posts DROP COLUMN author_key_name, DROP COLUMN author_surface, DROP COLUMN origin_key_id,
          DROP COLUMN origin_key_name, DROP COLUMN origin_kind, DROP COLUMN origin_surface`)
        yield* provenance

        const read = (id: typeof first.record.post.id) => Effect.flatMap(store.find(projectId, id), Effect.orDieWith(() => "post gone"))
        const before = yield* read(first.record.post.id)
        expect(provenanceOf(before.post)).toEqual({
          created_by: { key_id: first.record.post.author.keyId, key_name: null, kind: "agent", surface: null },
          edited_by: null,
          decided_by: null
        })
        const after = yield* read(edit.record.post.id)
        expect(provenanceOf(after.post)).toEqual({
          created_by: { key_id: first.record.post.author.keyId, key_name: null, kind: "agent", surface: null },
          edited_by: { key_id: edit.record.post.author.keyId, key_name: null, kind: "human", surface: null, at: expect.any(String) },
          decided_by: { outcome: "approved", via: "api_key", key_id: edit.record.post.author.keyId, key_name: null, surface: null, channel: null, at }
        })
        expect(toReceiptEntry(after.deliveries[0]!).taken_down_by_key).toEqual({
          key_id: edit.record.post.author.keyId,
          key_name: null,
          kind: null,
          surface: null
        })
      }))
  })
})

describe.skipIf(url === "")("migrations 0046 and 0047 on PostgreSQL (needs DATABASE_URL)", () => {
  layer(Layer.suspend(() => storageOnThrowawaySchema(url)), { timeout: 30_000 })((it) => {
    it.effect("0046 drops the snapshots that repeat the one before them, and keeps every change", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const store = yield* PostStore
        const project = newProject()
        const input = publishedPost(project.id, [{ platform: "x", publishedAt: DateTime.unsafeMake("2030-02-03T04:05:06.000Z") }])
        yield* store.create(input)
        const id = input.record.deliveries[0]!.id
        // As a sync before the rule wrote them: one snapshot per fetch, changed or not.
        const series: ReadonlyArray<readonly [string, number, number | null]> = [
          ["2030-02-03T05:00:00Z", 10, null],
          ["2030-02-03T11:00:00Z", 10, null],
          ["2030-02-03T17:00:00Z", 12, null],
          ["2030-02-03T23:00:00Z", 12, 1],
          ["2030-02-04T05:00:00Z", 12, 1],
          ["2030-02-04T11:00:00Z", 10, null]
        ]
        for (const [at, views, likes] of series) {
          yield* sql`INSERT INTO metric_snapshots (delivery_id, taken_at, views, likes) VALUES (${id}, ${at}::timestamptz, ${views}, ${likes})`
        }
        yield* metricsHistory
        const kept = yield* sql<{ readonly taken_at: Date; readonly views: string; readonly likes: string | null }>`
          SELECT taken_at, views, likes FROM metric_snapshots WHERE delivery_id = ${id} ORDER BY taken_at`
        expect(kept.map((row) => [row.taken_at.toISOString(), Number(row.views), row.likes === null ? null : Number(row.likes)])).toEqual([
          ["2030-02-03T05:00:00.000Z", 10, null],
          ["2030-02-03T17:00:00.000Z", 12, null],
          ["2030-02-03T23:00:00.000Z", 12, 1],
          ["2030-02-04T11:00:00.000Z", 10, null]
        ])
      }))

    it.effect("0047 gives the messages queued before it their post's version, and a post may then be owed one per hold", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const store = yield* PostStore
        const project = newProject()
        const input = newPost({ projectId: project.id })
        yield* store.create(input)
        const postId = input.record.post.id
        yield* sql`UPDATE posts SET version = 3, status = 'pending_approval' WHERE id = ${postId}`
        // The table as 0038 made it.
        yield* sql.unsafe(`ALTER TABLE approval_messages DROP CONSTRAINT approval_messages_hold, DROP COLUMN post_version;
          ALTER TABLE approval_messages ADD CONSTRAINT approval_messages_post_id_channel_id_key UNIQUE (post_id, channel_id)`)
        const channelId = "00000000-0000-4000-8000-0000000000c1"
        yield* sql`INSERT INTO approval_messages (id, project_id, post_id, channel_id, kind, recipient, status, due_at)
          VALUES ('00000000-0000-4000-8000-0000000000a1', ${project.id}, ${postId}, ${channelId}, 'email', 'dana@example.com', 'sent', now())`
        yield* approvalMessageHolds
        const [row] = yield* sql<{ readonly post_version: number }>`SELECT post_version FROM approval_messages WHERE post_id = ${postId}`
        expect(row).toEqual({ post_version: 3 })
        // A later hold of the same post and channel is a message of its own; the same hold twice is not.
        const queue = (id: string, version: number) =>
          sql`INSERT INTO approval_messages (id, project_id, post_id, post_version, channel_id, kind, recipient, status, due_at)
            VALUES (${id}, ${project.id}, ${postId}, ${version}, ${channelId}, 'email', 'dana@example.com', 'pending', now())
            ON CONFLICT (post_id, channel_id, post_version) DO NOTHING RETURNING id`
        expect(yield* queue("00000000-0000-4000-8000-0000000000a2", 5)).toHaveLength(1)
        expect(yield* queue("00000000-0000-4000-8000-0000000000a3", 5)).toHaveLength(0)
      }))
  })
})
