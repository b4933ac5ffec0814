import { SqlClient } from "@effect/sql"
import { ApiKeyHash, DashboardSessions, inSpan, type SessionRole } from "@herald/core"
import { DateTime, Effect, Layer, Option } from "effect"

interface SessionRow {
  readonly role: SessionRole
  readonly credential_hash: string
  readonly expires_at: Date
}

/** Dashboard sessions in PostgreSQL (hashes only), in the table of migration 0039_dashboard_sessions. */
export const PostgresDashboardSessions = Layer.effect(
  DashboardSessions,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return DashboardSessions.of({
      open: (tokenHash, session, now) =>
        // Sign-in is rare: it is also when the sessions that have expired are swept away.
        sql`DELETE FROM dashboard_sessions WHERE expires_at <= ${DateTime.toDateUtc(now)}`.pipe(
          Effect.zipRight(sql`INSERT INTO dashboard_sessions (token_hash, role, credential_hash, created_at, expires_at)
              VALUES (${tokenHash}, ${session.role}, ${session.credentialHash}, ${DateTime.toDateUtc(now)}, ${DateTime.toDateUtc(session.expiresAt)})`),
          Effect.asVoid,
          Effect.orDie,
          inSpan("DashboardSessions.open")
        ),
      find: (tokenHash, now) =>
        sql<SessionRow>`SELECT role, credential_hash, expires_at FROM dashboard_sessions
            WHERE token_hash = ${tokenHash} AND expires_at > ${DateTime.toDateUtc(now)}`.pipe(
          Effect.map((rows) =>
            Option.map(Option.fromNullable(rows[0]), (row) => ({
              role: row.role,
              credentialHash: ApiKeyHash.make(row.credential_hash, true),
              expiresAt: DateTime.unsafeMake(row.expires_at)
            }))),
          Effect.orDie,
          inSpan("DashboardSessions.find")
        ),
      end: (tokenHash) =>
        sql`DELETE FROM dashboard_sessions WHERE token_hash = ${tokenHash}`.pipe(Effect.asVoid, Effect.orDie, inSpan("DashboardSessions.end"))
    })
  })
)
