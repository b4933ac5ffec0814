import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { inSpan, PublishingPauses, WorkerHeartbeats } from "@herald/core"
import { migrationRunning } from "@herald/storage-postgres"
import { Config, Context, DateTime, Duration, Effect, Exit, Layer, Ref } from "effect"

const noStore = { "cache-control": "no-store" }

/** A worker that has not run for this long is reported stale (every worker polls far more often). */
export const staleAfter = Duration.minutes(2)

/** A question to the database, answered within 2 seconds or taken as no answer. */
const answered = <A, E, R>(query: Effect.Effect<A, E, R>) =>
  query.pipe(Effect.timeout(Duration.seconds(2)), Effect.exit, Effect.map(Exit.getOrElse(() => null)))

const databaseReachable = Effect.map(answered(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`)), (rows) => rows !== null)

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
    { status: reachable ? 200 : 503, headers: noStore }
  )
}).pipe(Effect.orDie, inSpan("health"))

/**
 * Whether the process is shutting down: set when its scope starts closing (`drainOnStop`), after
 * which readiness answers 503 for the drain delay while the server still serves, so a load
 * balancer takes the process out of rotation before it stops accepting connections.
 */
export class Draining extends Context.Tag("@herald/app/Draining")<Draining, Ref.Ref<boolean>>() {}

export const DrainingLive = Layer.effect(Draining, Ref.make(false))

/** HERALD_DRAIN_DELAY: how long a stopping server reports not ready before it closes (default none). */
export const drainDelay = Config.duration("HERALD_DRAIN_DELAY").pipe(Config.withDefault(Duration.zero))

/**
 * Raises Draining and waits out the delay when its scope closes. Built after the server serves
 * (`Layer.provide(serving)`), it is finalized before the server stops handling requests.
 */
export const drainOnStop = (delay: Duration.Duration) =>
  Layer.scopedDiscard(Effect.flatMap(Draining, (draining) =>
    Effect.addFinalizer(() => Effect.zipRight(Ref.set(draining, true), Effect.sleep(delay)))))

/** GET /health/live: the process answers (nothing else is asked: a restart would not fix the database). */
const liveness = HttpServerResponse.json({ status: "alive" }, { headers: noStore })

/**
 * GET /health/ready: whether this process should be sent requests. 503 with the reason while it
 * drains (shutting down), while the database does not answer, or while a migration runs on it (this
 * process's own runs before it listens; another's holds the schema mid-change); else 200.
 */
const readiness = Effect.gen(function*() {
  const reason = (yield* Ref.get(yield* Draining))
    ? "draining"
    : !(yield* databaseReachable)
    ? "database_unreachable"
    : (yield* answered(migrationRunning)) !== false
    ? "migrating"
    : null
  return yield* HttpServerResponse.json(
    { ready: reason === null, reason },
    { status: reason === null ? 200 : 503, headers: noStore }
  )
}).pipe(Effect.orDie)

/** Adds GET /health, /health/live and /health/ready to the router the APIs are served from. */
export const healthRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<SqlClient.SqlClient | WorkerHeartbeats | PublishingPauses | Draining>()
    yield* router.get("/health", Effect.provide(health, context))
    yield* router.get("/health/live", liveness)
    yield* router.get("/health/ready", Effect.provide(readiness, context))
  })
)

/** The health routes for a host that embeds Herald and stops it itself: never draining. */
export const HealthLive = healthRoutes.pipe(Layer.provide(DrainingLive))
