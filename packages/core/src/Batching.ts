import { Duration, Effect, Exit, type Scope } from "effect"
import { pendingWork } from "./Pending.js"

interface Pending<I, A, E> {
  readonly item: I
  readonly resume: (answer: Effect.Effect<A, E>) => void
}

/**
 * A call whose items are written in batches: items that arrive while one batch is being written
 * go out together in the next, so a busy caller pays one round trip for many items and an idle
 * one waits for nothing. `run` answers the items of a batch in their order; its failure is every
 * item's failure. A batch once taken is always run and answered, even while the scope closes, so a
 * caller that cannot be interrupted is never left waiting: close the scope after such callers.
 * Items still waiting when it closes, and items that come after, are interrupted.
 *
 * The waiting items are a plain array and each caller is resumed directly: a queue and a Deferred
 * per item cost the dispatcher more than the rest of its bookkeeping, at three calls per delivery.
 *
 * `linger` holds a batch open that long after its first item (unless it fills first), for items
 * that arrive spread out but close together: a statement has a cost of its own, whatever it carries.
 */
export const batching = <I, A, E, R>(
  run: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<A>, E, R>,
  maxBatch: number,
  linger: Duration.Duration = Duration.zero
): Effect.Effect<(item: I) => Effect.Effect<A, E>, never, R | Scope.Scope> =>
  Effect.gen(function*() {
    let waiting: Array<Pending<I, A, E>> = []
    let closed = false
    const take = () => {
      const batch = waiting.length <= maxBatch ? waiting : waiting.slice(0, maxBatch)
      waiting = batch === waiting ? [] : waiting.slice(maxBatch)
      return batch
    }
    // The writer waits here for a first item.
    const first = pendingWork(() => waiting.length > 0)
    const answer = (batch: ReadonlyArray<Pending<I, A, E>>) =>
      Effect.map(Effect.exit(Effect.suspend(() => run(batch.map((entry) => entry.item)))), (exit) => {
        batch.forEach((entry, index) => entry.resume(Exit.map(exit, (answers) => answers[index]!)))
      })
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        const left = waiting
        waiting = []
        for (const entry of left) entry.resume(Effect.interrupt)
      })
    )
    // Fibers started in the same step as the first item (a claim batch) submit theirs once it
    // yields: one yield lets them join its batch instead of each starting one of their own.
    const gather = Duration.greaterThan(linger, Duration.zero)
      ? Effect.zipRight(Effect.yieldNow(), Effect.suspend(() => waiting.length >= maxBatch ? Effect.void : Effect.sleep(linger)))
      : Effect.yieldNow()
    yield* Effect.forkScoped(Effect.forever(
      Effect.uninterruptibleMask((restore) =>
        restore(Effect.zipRight(first.untilAny, Effect.suspend(() => waiting.length >= maxBatch ? Effect.void : gather))).pipe(
          Effect.flatMap(() => answer(take()))
        )
      )
    ))
    return (item: I) =>
      Effect.async<A, E>((resume) => {
        if (closed) return resume(Effect.interrupt)
        waiting.push({ item, resume })
        first.added()
      })
  })
