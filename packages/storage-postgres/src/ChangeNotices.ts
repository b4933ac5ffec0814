import { PgClient } from "@effect/sql-pg"
import { Context, Deferred, Duration, Effect, Exit, FiberId, Layer, Option, Schedule, Stream } from "effect"
import { randomUUID } from "node:crypto"

/** What a change notice names: a project's settings, accounts or keys. */
export type ChangeTopic = "project" | "accounts" | "keys"

const channel = "herald_changes"

/** How long a read kept for notices may be served at most, whatever they say: a backstop, not the mechanism. */
const noticedMaxAge = Duration.toMillis(Duration.seconds(30))

interface Entry<V> {
  readonly value: V
  readonly storedAt: number
}

/** A read under way, and the generation of its group when it began. */
interface Flight<V> {
  readonly generation: number
  /** Its value, or none when it failed or was interrupted. */
  readonly done: Deferred.Deferred<Option.Option<V>>
}

interface Group<V> {
  generation: number
  readonly entries: Map<string, Entry<V>>
  readonly flights: Map<string, Flight<V>>
}

/**
 * Reads kept in this process until their group (a project) is evicted or they reach `maxAge`
 * milliseconds. A read stores its result only if no eviction of its group came while it ran, so a
 * read that raced a write is served once and never kept; while evictions may be missed (`trusted`
 * false: notices not known to arrive) nothing is kept or shared at all. Misses of the same entry
 * share one read while no eviction came since it began (a caller that wrote first, which evicts,
 * reads again): when a list expires under load, one read goes to the database instead of one per
 * request waiting. A shared read that fails leaves each waiter to read for itself. It holds at
 * most `capacity` groups and as many entries, and starts over when either is reached.
 */
export class ReadCache<V> {
  private groups = new Map<string, Group<V>>()
  private size = 0
  constructor(
    private readonly trusted: () => boolean,
    private readonly capacity: number,
    private readonly maxAge: number
  ) {}

  /** `read` is called only on a miss that no read under way can answer: a hit builds no statement. */
  readonly through = <E, R>(group: string, key: string, read: () => Effect.Effect<V, E, R>): Effect.Effect<V, E, R> =>
    Effect.suspend(() => {
      const found = this.groups.get(group)
      const entry = found?.entries.get(key)
      const trusted = this.trusted()
      if (entry !== undefined && trusted && Date.now() - entry.storedAt < this.maxAge) return Effect.succeed(entry.value)
      const before = this.groupFor(group)
      const generation = before.generation
      const flight = before.flights.get(key)
      if (trusted && flight !== undefined && flight.generation === generation) {
        return Effect.flatMap(Deferred.await(flight.done), Option.match({ onNone: read, onSome: Effect.succeed }))
      }
      const done = Deferred.unsafeMake<Option.Option<V>>(FiberId.none)
      if (trusted) before.flights.set(key, { generation, done })
      return read().pipe(
        Effect.tap((value) => {
          if (!this.trusted() || this.groups.get(group) !== before || before.generation !== generation) return
          if (!before.entries.has(key)) {
            if (this.size >= this.capacity) return this.startOver()
            this.size++
          }
          before.entries.set(key, { value, storedAt: Date.now() })
        }),
        Effect.onExit((exit) => {
          if (before.flights.get(key)?.done === done) before.flights.delete(key)
          return Deferred.succeed(done, Exit.isSuccess(exit) ? Option.some(exit.value) : Option.none())
        })
      )
    })

  evict(group: string): void {
    const found = this.groups.get(group)
    if (found === undefined) return
    found.generation++
    this.size -= found.entries.size
    found.entries.clear()
  }

  evictAll(): void {
    for (const group of this.groups.values()) {
      group.generation++
      group.entries.clear()
    }
    this.size = 0
  }

  /** Drops every group; reads in flight hold the old group objects, so they store nothing. */
  private startOver(): void {
    this.groups = new Map()
    this.size = 0
  }

  private groupFor(name: string): Group<V> {
    const found = this.groups.get(name)
    if (found !== undefined) return found
    if (this.groups.size >= this.capacity) this.startOver()
    const created: Group<V> = { generation: 0, entries: new Map(), flights: new Map() }
    this.groups.set(name, created)
    return created
  }
}

/**
 * Change notices for the read caches of the repositories. Every write to projects, guardrail
 * settings, accounts and keys raises one from the database itself (triggers, migration 0006), so
 * no writer, in any process, can forget it; on PostgreSQL they reach every process
 * through LISTEN. The writer's own process also evicts at once (`changed`), so a caller reads its
 * own writes whatever the channel does. The channel is trusted only while a heartbeat sent through
 * it comes back in time; until then, and after one is missed, the caches keep nothing.
 */
export class ChangeNotices extends Context.Tag("@herald/storage-postgres/ChangeNotices")<ChangeNotices, {
  /** A cache evicted by the topic's notices, of at most `capacity` entries. */
  readonly cache: <V>(topic: ChangeTopic, capacity: number) => ReadCache<V>
  /** A change this process just committed. */
  readonly changed: (topic: ChangeTopic, projectId: string) => void
}>() {
  /** One process over the embedded store: every write passes through `changed`. */
  static readonly inProcess = Layer.sync(ChangeNotices, () => registry(() => true).service)

  static readonly postgres = Layer.scoped(
    ChangeNotices,
    Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      let trusted = false
      const { service, evictAll, notice } = registry(() => trusted)
      // This process's heartbeats on their way: nonce -> when sent.
      const pending = new Map<string, number>()
      const distrust = () => {
        trusted = false
        evictAll()
      }

      const heartbeat = Effect.gen(function*() {
        const oldest = Math.min(...pending.values())
        if (Date.now() - oldest > heartbeatTimeout) {
          if (trusted) yield* Effect.logWarning("change notices stopped arriving; read caches keep nothing until they do")
          distrust()
          pending.clear()
        }
        const nonce = randomUUID()
        pending.set(nonce, Date.now())
        yield* sql`SELECT pg_notify(${channel}, ${`hello:${nonce}`})`.pipe(
          Effect.catchAll((error) => Effect.logWarning("change-notice heartbeat failed", error))
        )
      })

      /** One of this process's heartbeats came back: the channel carries what was sent before it. */
      const echoed = (nonce: string) => {
        const sentAt = pending.get(nonce)
        if (sentAt === undefined) return
        for (const [other, at] of pending) if (at <= sentAt) pending.delete(other)
        if (!trusted) {
          // Reads that began while notices could be lost must not be kept.
          evictAll()
          trusted = true
        }
      }

      const listen = sql.listen(channel).pipe(
        Stream.runForEach((payload) =>
          Effect.sync(() => {
            if (payload.startsWith("hello:")) echoed(payload.slice("hello:".length))
            else notice(payload)
          })
        ),
        Effect.tapError((error) => Effect.logWarning("LISTEN for change notices failed; retrying", error)),
        Effect.ensuring(Effect.sync(distrust)),
        Effect.retry(Schedule.spaced("1 second")),
        Effect.orDie
      )
      yield* Effect.forkScoped(listen)
      yield* Effect.forkScoped(Effect.repeat(heartbeat, Schedule.spaced(heartbeatInterval)))
      return service
    })
  )
}

const heartbeatInterval = Duration.millis(500)
const heartbeatTimeout = 3_000

const topics: ReadonlySet<string> = new Set<ChangeTopic>(["project", "accounts", "keys"])

const registry = (trusted: () => boolean) => {
  const caches = new Map<ChangeTopic, Array<ReadCache<unknown>>>()
  const changed = (topic: ChangeTopic, projectId: string) => {
    for (const cache of caches.get(topic) ?? []) {
      // Keys are cached by their hash, not by project: any key change empties that cache.
      if (topic === "keys") cache.evictAll()
      else cache.evict(projectId)
    }
  }
  const service = ChangeNotices.of({
    cache: <V>(topic: ChangeTopic, capacity: number) => {
      const cache = new ReadCache<V>(trusted, capacity, noticedMaxAge)
      caches.set(topic, [...(caches.get(topic) ?? []), cache as ReadCache<unknown>])
      return cache
    },
    changed
  })
  return {
    service,
    evictAll: () => {
      for (const list of caches.values()) for (const cache of list) cache.evictAll()
    },
    /** `<topic>:<project id>`, as the triggers send it. */
    notice: (payload: string) => {
      const at = payload.indexOf(":")
      const topic = payload.slice(0, at)
      if (at > 0 && topics.has(topic)) changed(topic as ChangeTopic, payload.slice(at + 1))
    }
  }
}
