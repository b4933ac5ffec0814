import { Chunk, Deferred, Effect, Exit, Queue, type Scope } from "effect"

interface Pending<I, A, E> {
  readonly item: I
  readonly done: Deferred.Deferred<A, E>
}

/**
 * A call whose items are written in batches: items that arrive while one batch is being written
 * go out together in the next, so a busy caller pays one round trip for many items and an idle
 * one waits for nothing. `run` answers the items of a batch in their order; its failure is every
 * item's failure. A batch once taken is always run and answered, even while the scope closes, so a
 * caller that cannot be interrupted is never left waiting: close the scope after such callers.
 */
export const batching = <I, A, E, R>(
  run: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<A>, E, R>,
  maxBatch: number
): Effect.Effect<(item: I) => Effect.Effect<A, E>, never, R | Scope.Scope> =>
  Effect.gen(function*() {
    const pending = yield* Queue.unbounded<Pending<I, A, E>>()
    yield* Effect.addFinalizer(() => Queue.shutdown(pending))
    const answer = (batch: ReadonlyArray<Pending<I, A, E>>) =>
      Effect.suspend(() => run(batch.map((entry) => entry.item))).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.forEach(batch, (entry, index) =>
            Deferred.done(entry.done, Exit.map(exit, (answers) => answers[index]!)), { discard: true })
        )
      )
    // Fibers started in the same step as the first item (a claim batch) submit theirs once it
    // yields: one yield lets them join its batch instead of each starting one of their own.
    const more = (first: Chunk.Chunk<Pending<I, A, E>>) =>
      first.length === maxBatch
        ? Effect.succeed(first)
        : Effect.zipRight(Effect.yieldNow(), Effect.map(Queue.takeUpTo(pending, maxBatch - first.length), (rest) => Chunk.appendAll(first, rest)))
    yield* Effect.forkScoped(Effect.forever(
      Effect.uninterruptibleMask((restore) =>
        restore(Queue.takeBetween(pending, 1, maxBatch)).pipe(
          Effect.flatMap(more),
          Effect.flatMap((batch) => answer(Chunk.toReadonlyArray(batch)))
        )
      )
    ))
    return (item: I) =>
      Effect.flatMap(Deferred.make<A, E>(), (done) =>
        Effect.zipRight(Queue.offer(pending, { item, done }), Deferred.await(done)))
  })
