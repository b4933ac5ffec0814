import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { inSpan, PublishingPauses, WorkerHeartbeats } from "@herald/core"
import { DateTime, Duration, Effect, Exit } from "effect"

/** A worker that has not run for this long is reported stale (every worker polls far more often). */
export const staleAfter = Duration.minutes(2)

const databaseReachable = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(
  Effect.timeout(Duration.seconds(2)),
  Effect.exit,
  Effect.map(Exit.isSuccess)
)

/**
 * The emergency stops, as a public page may show them: whether the instance is paused and since
 * when, and how many projects are paused on their own (neither which ones nor why: /health needs no key).
 */
const publishingOf = (reachable: boolean) =>
  (reachable
    ? Effect.flatMap(PublishingPauses, (pauses) => pauses.list).pipe(Effect.catchAllDefect(() => Effect.succeed(null)))
    : Effect.succeed(null)).pipe(Effect.map((pauses) => {
      if (pauses === null) return null
      const instance = pauses.find((pause) => pause.projectId === null)
      return {
        paused: instance !== undefined,
        paused_at: instance === undefined ? null : DateTime.formatIso(instance.pausedAt),
        projects_paused: pauses.filter((pause) => pause.projectId !== null).length
      }
    }))

/**
 * GET /health (public, no key): whether the database answers, when each background worker
 * last ran with a stale flag, and whether publishing is paused (docs/emergency-stop.md; null when
 * the database does not answer). A pause does not change the status: the service is healthy, held on purpose. 200 with status ok, or degraded when no worker has run yet or every
 * worker of some kind is stale; 503 with status unavailable when the database does not answer.
 */
export const health = Effect.gen(function*() {
  const reachable = yield* databaseReachable
  const now = yield* DateTime.now
  const beats = reachable
    ? yield* Effect.flatMap(WorkerHeartbeats, (heartbeats) => heartbeats.list).pipe(
      Effect.catchAllDefect(() => Effect.succeed([]))
    )
    : []
  const workers = beats.map((beat) => ({
    worker: beat.worker,
    kind: beat.kind,
    last_ran_at: DateTime.formatIso(beat.lastRanAt),
    stale: DateTime.distance(beat.lastRanAt, now) > Duration.toMillis(staleAfter)
  }))
  // Worker names are per process, so a restarted process leaves its old name behind, stale: a kind
  // is fine while any of its workers is fresh.
  const kinds = new Set(workers.map((w) => w.kind))
  const kindStalled = [...kinds].some((kind) => workers.every((w) => w.kind !== kind || w.stale))
  const status = !reachable ? "unavailable" : workers.length === 0 || kindStalled ? "degraded" : "ok"
  return yield* HttpServerResponse.json(
    { status, database: { reachable }, workers, publishing: yield* publishingOf(reachable) },
    { status: reachable ? 200 : 503, headers: { "cache-control": "no-store" } }
  )
}).pipe(Effect.orDie, inSpan("health"))

/** Adds GET /health to the router the APIs are served from. */
export const HealthLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<SqlClient.SqlClient | WorkerHeartbeats | PublishingPauses>()
    yield* router.get("/health", Effect.provide(health, context))
  })
)
