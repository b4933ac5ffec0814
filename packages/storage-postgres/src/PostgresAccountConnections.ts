import { SqlClient } from "@effect/sql"
import { AccountConnections } from "@herald/core"
import { Effect, Layer } from "effect"
import { orDieInfra } from "./Infra.js"
import { writeEvents } from "./OutboxWrites.js"
import { Wakeups } from "./Wakeups.js"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const wakeups = yield* Wakeups
  return AccountConnections.of({
    markNeedsReconnect: Effect.fn("AccountConnections.markNeedsReconnect")(function*(accountId, event) {
      // The status guard makes concurrent workers that hit the same expired token write one event.
      const marked = yield* orDieInfra(sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql`
          UPDATE social_accounts SET status = 'needs_reconnect'
          WHERE id = ${accountId} AND status = 'active' RETURNING id`
        if (rows.length === 0) return false
        yield* writeEvents(sql, [event])
        return true
      })))
      if (marked) yield* wakeups.signal("outbox")
      return marked
    })
  })
})

/** AccountConnections over social_accounts and the outbox. */
export const PostgresAccountConnections = Layer.effect(AccountConnections, make)
