import { SqlClient } from "@effect/sql"
import { type ProjectId, PublishingPause, PublishingPauses, traced } from "@herald/core"
import { DateTime, Effect, Layer, Option } from "effect"
import { orDieInfra } from "./Infra.js"
import { Wakeups } from "./Wakeups.js"

interface PauseRow {
  readonly project_id: ProjectId | null
  readonly paused_at: Date | string
  readonly reason: string | null
}

const fromRow = (row: PauseRow) =>
  PublishingPause.make({ projectId: row.project_id, pausedAt: DateTime.unsafeMake(row.paused_at), reason: row.reason })

const scopeOf = (projectId: ProjectId | null) => projectId ?? "instance"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const wakeups = yield* Wakeups
  return PublishingPauses.of({
    pause: traced("PublishingPauses.pause")((pause) =>
      // A scope already paused keeps its first pause: the no-op update returns the row standing,
      // and, unlike DO NOTHING beside a read of the table, it waits for a concurrent pause of the
      // same scope instead of reading a snapshot taken before that pause committed (no row at all).
      orDieInfra(sql<PauseRow>`
        INSERT INTO publishing_pauses (scope, project_id, paused_at, reason)
        VALUES (${scopeOf(pause.projectId)}, ${pause.projectId}, ${DateTime.formatIso(pause.pausedAt)}, ${pause.reason})
        ON CONFLICT (scope) DO UPDATE SET scope = EXCLUDED.scope
        RETURNING project_id, paused_at, reason`).pipe(
        Effect.map((rows) => fromRow(rows[0]!))
      )
    ),
    resume: traced("PublishingPauses.resume")(function*(projectId) {
      const rows = yield* orDieInfra(sql<PauseRow>`
        DELETE FROM publishing_pauses WHERE scope = ${scopeOf(projectId)} RETURNING project_id, paused_at, reason`)
      // What fell due during the pause is due now: the dispatchers need not wait for their poll.
      if (rows.length > 0) yield* wakeups.signal("deliveries")
      return Option.map(Option.fromNullable(rows[0]), fromRow)
    }),
    holding: traced("PublishingPauses.holding")((projectId) =>
      orDieInfra(sql<PauseRow>`
        SELECT project_id, paused_at, reason FROM publishing_pauses WHERE scope IN ('instance', ${projectId})`).pipe(
        Effect.map((rows) => rows.map(fromRow))
      )
    ),
    list: orDieInfra(sql<PauseRow>`SELECT project_id, paused_at, reason FROM publishing_pauses ORDER BY paused_at, scope`).pipe(
      Effect.map((rows) => rows.map(fromRow))
    )
  })
})

/** PublishingPauses over the publishing_pauses table (migration 0017), which the delivery claim reads too. */
export const PostgresPublishingPauses = Layer.effect(PublishingPauses, make)
