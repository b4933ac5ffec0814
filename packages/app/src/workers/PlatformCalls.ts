import { OutcomeUnknown } from "@herald/core"
import { Clock, Deferred, Duration, Effect, Either, Fiber, Queue, type Scope } from "effect"

/** A call in flight, as its time limit sees it. */
interface Pending {
  readonly at: number
  answered: boolean
  /** Times the call out; dropped once it answers, so an answered call holds nothing. */
  expire: Effect.Effect<void> | undefined
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
 * come in the order the calls started: the fiber takes the oldest, sleeps until its deadline if it
 * is still waiting, and times it out; the calls behind it are due later still. A timer fiber per
 * call (and the fiber that interrupted it once the answer came) cost as much as the call's client.
 */
export const platformCalls = (timeout: Duration.Duration): Effect.Effect<PlatformCalls, never, Scope.Scope> =>
  Effect.gen(function*() {
    const limitMs = Duration.toMillis(timeout)
    const pending = yield* Queue.unbounded<Pending>()
    const expireOldest = Effect.gen(function*() {
      const oldest = yield* Queue.take(pending)
      const wait = oldest.at - (yield* Clock.currentTimeMillis)
      if (!oldest.answered && wait > 0) yield* Effect.sleep(Duration.millis(wait))
      if (!oldest.answered && oldest.expire !== undefined) yield* oldest.expire
    })
    yield* Effect.forkScoped(Effect.interruptible(Effect.forever(expireOldest)))

    const call = <A, E>(call: Effect.Effect<A, E>, what: string) =>
      Effect.gen(function*() {
        const answer = yield* Deferred.make<Either.Either<A, E | OutcomeUnknown>>()
        const entry: Pending = { at: (yield* Clock.currentTimeMillis) + limitMs, answered: false, expire: undefined }
        const calling = yield* Effect.forkDaemon(Effect.flatMap(Effect.either(Effect.interruptible(call)), (result) => {
          entry.answered = true
          entry.expire = undefined
          return Deferred.succeed(answer, result)
        }))
        if (!entry.answered) {
          entry.expire = Effect.suspend(() => Deferred.succeed(answer, Either.left(new OutcomeUnknown({ detail: `${what} within ${Duration.format(timeout)}` })))).pipe(
            // Not awaited: a call slow to stop must not hold up the time limits of the others.
            Effect.zipRight(Fiber.interruptFork(calling))
          )
        }
        yield* Queue.offer(pending, entry)
        return yield* Deferred.await(answer)
      })
    return { call }
  })
