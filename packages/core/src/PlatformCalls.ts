import { Clock, Deferred, Duration, Effect, Either, Fiber, type Scope } from "effect"
import { pendingWork } from "./Pending.js"
import { OutcomeUnknown } from "./ports/Publishers.js"

/** A call in flight, as its time limit sees it. */
interface Pending {
  readonly at: number
  answered: boolean
  /** Times the call out. */
  expire: Effect.Effect<void>
}

export interface PlatformCalls {
  /**
   * The call's answer, or an OutcomeUnknown saying `${what} within <the limit>` once its time limit
   * passes (the call is then interrupted). The call runs in a daemon fiber: an interrupt sent to
   * the caller reaches its children at once, even while the caller is uninterruptible, and a
   * shutdown must wait for the answer and record it. Only the time limit cuts a call short.
   */
  readonly call: <A, E>(call: Effect.Effect<A, E>, what: string) => Effect.Effect<Either.Either<A, E | OutcomeUnknown>>
}

/**
 * Platform calls under one time limit, kept by one fiber for all of them until the scope closes
 * (close it after every call has answered). Every call gets the same limit, so their deadlines
 * come in the order the calls started: the calls not answered yet are kept in that order (a Set:
 * an answer takes its call out at once), and the fiber sleeps until the oldest one's deadline and
 * times it out if it is still there. It wakes once per deadline it slept for, not once per call,
 * and an answered call holds nothing. A timer fiber per call (and the fiber that interrupted it once
 * the answer came) cost as much as the call's client.
 */
export const platformCalls = (timeout: Duration.Duration): Effect.Effect<PlatformCalls, never, Scope.Scope> =>
  Effect.gen(function*() {
    const limitMs = Duration.toMillis(timeout)
    const pending = new Set<Pending>()
    // The keeper waits here while no call is pending.
    const firstCall = pendingWork(() => pending.size > 0)
    const expireOldest = Effect.gen(function*() {
      const oldest = pending.values().next()
      if (oldest.done === true) return yield* firstCall.untilAny
      const wait = oldest.value.at - (yield* Clock.currentTimeMillis)
      if (wait > 0) return yield* Effect.sleep(Duration.millis(wait))
      pending.delete(oldest.value)
      yield* oldest.value.expire
    })
    yield* Effect.forkScoped(Effect.interruptible(Effect.forever(expireOldest)))

    // Made once and called per call (Effect.gen of a generator written inline makes a generator
    // function per call; see docs/architecture.md).
    function* underLimit<A, E>(call: Effect.Effect<A, E>, what: string) {
      const answer = yield* Deferred.make<Either.Either<A, E | OutcomeUnknown>>()
      const entry: Pending = { at: (yield* Clock.currentTimeMillis) + limitMs, answered: false, expire: Effect.void }
      const calling = yield* Effect.forkDaemon(Effect.flatMap(Effect.either(Effect.interruptible(call)), (result) => {
        entry.answered = true
        pending.delete(entry)
        return Deferred.succeed(answer, result)
      }))
      if (!entry.answered) {
        entry.expire = Effect.suspend(() => Deferred.succeed(answer, Either.left(new OutcomeUnknown({ detail: `${what} within ${Duration.format(timeout)}` })))).pipe(
          // Not awaited: a call slow to stop must not hold up the time limits of the others.
          Effect.zipRight(Fiber.interruptFork(calling))
        )
        pending.add(entry)
        firstCall.added()
      }
      return yield* Deferred.await(answer)
    }
    return { call: (call, what) => Effect.gen(() => underLimit(call, what)) }
  })
