import type { SqlClient } from "@effect/sql"
import type { OutboxEvent } from "@herald/core"
import { Effect } from "effect"
import { eventToRow } from "./Rows.js"

/**
 * Writes events to the outbox and fans each out to every enabled endpoint subscribed to its kind.
 * Runs inside the caller's transaction: an event exists exactly when the change that caused it does.
 */
export const writeEvents = (sql: SqlClient.SqlClient, events: ReadonlyArray<OutboxEvent>) =>
  events.length === 0 ? Effect.void : Effect.gen(function*() {
    yield* sql`INSERT INTO outbox_events ${sql.insert(events.map(eventToRow))}`
    yield* sql`
      INSERT INTO webhook_sends (id, event_id, endpoint_id, status, due_at)
      SELECT gen_random_uuid(), e.id, w.id, 'pending', e.created_at
      FROM outbox_events e
      JOIN webhook_endpoints w ON w.project_id = e.project_id AND w.enabled AND e.kind = ANY (w.kinds)
      WHERE e.id IN ${sql.in(events.map((event) => event.id))}`
  })
