import { Context, type DateTime, type Effect, type Option } from "effect"
import type { ApiKeyHash } from "./ApiKeyStore.js"

/** Who a dashboard session signs in: the operator (the admin API) or a reviewer (the REST API). */
export type SessionRole = "operator" | "reviewer"

export interface DashboardSession {
  readonly role: SessionRole
  /** hashApiKey of the admin token or human key the session was opened with. */
  readonly credentialHash: ApiKeyHash
  readonly expiresAt: DateTime.Utc
}

/**
 * Where the dashboard's sign-in sessions are kept (http-api DashboardSession.ts), by the SHA-256
 * (hex) of their token; the reference server's is PostgreSQL.
 */
export class DashboardSessions extends Context.Tag("@herald/core/DashboardSessions")<DashboardSessions, {
  readonly open: (tokenHash: string, session: DashboardSession, now: DateTime.Utc) => Effect.Effect<void>
  /** The session, unless it has expired by `now` (an expired one is removed on the way). */
  readonly find: (tokenHash: string, now: DateTime.Utc) => Effect.Effect<Option.Option<DashboardSession>>
  readonly end: (tokenHash: string) => Effect.Effect<void>
}>() {}
