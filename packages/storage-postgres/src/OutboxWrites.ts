import type { SqlClient, Statement } from "@effect/sql"
import type { OutboxEvent } from "@herald/core"
import { Effect } from "effect"
import { eventToRow } from "./Rows.js"

/**
 * Runs writes given as WITH items (`name AS (INSERT ...)`) as one statement: one round trip,
 * atomic on its own, or part of the caller's transaction. PostgreSQL runs every data-modifying
 * WITH item exactly once, read or not.
 */
export const writeAll = (sql: SqlClient.SqlClient, writes: ReadonlyArray<Statement.Fragment>) =>
  writes.length === 0 ? Effect.void : Effect.asVoid(sql`${sql.csv("WITH", writes)} SELECT 1`)

/**
 * The WITH items that write events to the outbox and fan each out to every enabled endpoint
 * subscribed to its kind. In the statement (or transaction) of the change that caused them, an
 * event exists exactly when that change does. The fan-out reads the outbox item's rows, as the
 * statement's own inserts are not visible to it in the table.
 */
export const eventWrites = (
  sql: SqlClient.SqlClient,
  events: ReadonlyArray<OutboxEvent>
): ReadonlyArray<Statement.Fragment> => events.length === 0 ? [] : eventWritesFrom(sql, sql`${sql.insert(events.map(eventToRow))}`)

/**
 * The same items for events given as a query (`SELECT` rows of outbox_events, or its `VALUES`), for
 * a statement that writes only the events of the changes it applied.
 */
export const eventWritesFrom = (sql: SqlClient.SqlClient, rows: Statement.Fragment): ReadonlyArray<Statement.Fragment> => [
  sql`outbox AS (
    INSERT INTO outbox_events ${rows} RETURNING id, project_id, kind, created_at)`,
  sql`fan_out AS (
    INSERT INTO webhook_sends (id, event_id, endpoint_id, status, due_at)
    SELECT gen_random_uuid(), e.id, w.id, 'pending', e.created_at
    FROM outbox e
    JOIN webhook_endpoints w ON w.project_id = e.project_id AND w.enabled AND e.kind = ANY (w.kinds)
    RETURNING event_id)`
]

/**
 * A notice for the webhook senders, in a statement written with `eventWritesFrom`: raised only
 * when one of its events was fanned out to an endpoint. Senders work on webhook_sends, most events
 * reach none, and every notifying commit takes one lock and holds it until it ends, which
 * serialises the dispatcher's commits.
 */
export const whenFannedOut = (sql: SqlClient.SqlClient, notice: Statement.Fragment): Statement.Fragment =>
  sql`CASE WHEN EXISTS (SELECT 1 FROM fan_out) THEN ${notice} END`

/** Writes events to the outbox with their fan-out, inside the caller's transaction. */
export const writeEvents = (sql: SqlClient.SqlClient, events: ReadonlyArray<OutboxEvent>) =>
  writeAll(sql, eventWrites(sql, events))
