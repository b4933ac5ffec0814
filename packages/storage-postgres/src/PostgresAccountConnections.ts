import { SqlClient } from "@effect/sql"
import { AccountConnections, traced } from "@herald/core"
import { Effect, Layer } from "effect"
import { ChangeNotices } from "./ChangeNotices.js"
import { orDieInfra } from "./Infra.js"
import { writeEvents } from "./OutboxWrites.js"
import { Wakeups } from "./Wakeups.js"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const wakeups = yield* Wakeups
  const notices = yield* ChangeNotices
  return AccountConnections.of({
    markNeedsReconnect: traced("AccountConnections.markNeedsReconnect")(function*(accountId, event) {
      // The status guard makes concurrent workers that hit the same expired token write one event.
      const marked = yield* orDieInfra(sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql<{ readonly project_id: string }>`
          UPDATE social_accounts SET status = 'needs_reconnect'
          WHERE id = ${accountId} AND status = 'active' RETURNING project_id`
        if (rows.length === 0) return false
        yield* writeEvents(sql, [event])
        return rows[0]!.project_id
      })))
      if (marked === false) return false
      notices.changed("accounts", marked)
      yield* wakeups.signal("outbox")
      return true
    })
  })
})

/** AccountConnections over social_accounts and the outbox. */
export const PostgresAccountConnections = Layer.effect(AccountConnections, make)
