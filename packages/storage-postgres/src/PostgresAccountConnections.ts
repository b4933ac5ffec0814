import { SqlClient } from "@effect/sql"
import { AccountConnections, traced } from "@herald/core"
import { Effect, Layer } from "effect"
import { ChangeNotices } from "./ChangeNotices.js"
import { markDead, openIncident } from "./ConnectionIncidents.js"
import { orDieInfra } from "./Infra.js"
import { Wakeups } from "./Wakeups.js"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const wakeups = yield* Wakeups
  const notices = yield* ChangeNotices
  return AccountConnections.of({
    markNeedsReconnect: traced("AccountConnections.markNeedsReconnect")(function*(accountId, event, issue) {
      // The status guard makes concurrent workers that hit the same expired token write one event.
      const marked = yield* orDieInfra(sql.withTransaction(Effect.gen(function*() {
        const marked = yield* markDead(sql, accountId, event)
        yield* openIncident(sql, accountId, issue, event.createdAt)
        return marked
      })))
      if (!marked) return false
      notices.changed("accounts", event.projectId)
      yield* wakeups.signal("outbox")
      return true
    })
  })
})

/** AccountConnections over social_accounts, connection_issues and the outbox. */
export const PostgresAccountConnections = Layer.effect(AccountConnections, make)
