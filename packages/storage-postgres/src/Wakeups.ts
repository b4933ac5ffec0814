import type { Statement } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, PubSub, Schedule, Stream } from "effect"

export type WakeupChannel = "deliveries" | "outbox"

/**
 * Early wake-ups for workers after a commit that made work due. A lost wake-up costs one poll
 * interval, never correctness. On PostgreSQL they are NOTIFY/LISTEN, so they cross processes;
 * PGlite does not route notifications between socket connections, and the embedded store is
 * single-process anyway, so there they stay in memory.
 */
export class Wakeups extends Context.Tag("@herald/storage-postgres/Wakeups")<Wakeups, {
  readonly signal: (channel: WakeupChannel) => Effect.Effect<void>
  readonly listen: (channel: WakeupChannel) => Stream.Stream<void>
  /**
   * An SQL expression that signals the channel when the transaction of the statement holding it
   * commits (a round trip less than `signal` after it); null where wake-ups do not go through the
   * database, and the caller signals after its commit.
   */
  readonly inStatement: (channel: WakeupChannel) => Statement.Fragment | null
}>() {
  static readonly postgres = Layer.effect(
    Wakeups,
    Effect.map(PgClient.PgClient, (sql) => ({
      signal: (channel: WakeupChannel) =>
        // pg_notify, not PgClient.notify: NOTIFY takes no bind parameters, so its `NOTIFY ch, $1` fails.
        sql`SELECT pg_notify(${`herald_${channel}`}, 'due')`.pipe(
          Effect.asVoid,
          Effect.catchAll((error) => Effect.logWarning("wake-up NOTIFY failed; workers will find the work by polling", error))
        ),
      listen: (channel: WakeupChannel) =>
        sql.listen(`herald_${channel}`).pipe(
          Stream.as(undefined),
          Stream.tapError((error) => Effect.logWarning("LISTEN failed; retrying", error)),
          Stream.retry(Schedule.spaced("5 seconds")),
          Stream.orDie
        ),
      inStatement: (channel: WakeupChannel) => sql`pg_notify(${`herald_${channel}`}, 'due')`
    }))
  )

  static readonly inProcess = Layer.scoped(
    Wakeups,
    Effect.gen(function*() {
      const hub = yield* PubSub.sliding<WakeupChannel>(16)
      yield* Effect.addFinalizer(() => PubSub.shutdown(hub))
      return {
        signal: (channel: WakeupChannel) => Effect.asVoid(PubSub.publish(hub, channel)),
        listen: (channel: WakeupChannel) =>
          Stream.fromPubSub(hub).pipe(Stream.filter((name) => name === channel), Stream.as(undefined)),
        inStatement: () => null
      }
    })
  )
}
