import type { HttpServerRequest } from "@effect/platform"
import { Deferred, Effect, Exit, Stream } from "effect"

/**
 * How long the rest of a body is still read, and dropped, once the reply to it is on its way:
 * a client that reads nothing until it has sent everything gets to finish and read the reply
 * instead of a reset. Past it the connection is cut (the client has had the reply that long).
 */
export const lingerMillis = 5_000

/**
 * Reads a request's body, handing `take` each chunk that arrives within the first `allowance`
 * bytes. Succeeds with the count of bytes read once the body has ended, or at once when it goes
 * past the allowance (an allowance of 0: at once): the rest is then read and dropped in the
 * background for lingerMillis while the caller answers, after which the connection is cut.
 *
 * One reader owns the body throughout: a node request whose reading stops before its end is
 * destroyed together with its socket, and the reply written after that never reaches the client.
 */
export const readBounded = (
  request: HttpServerRequest.HttpServerRequest,
  allowance: number,
  take: (chunk: Uint8Array) => void
) =>
  Effect.gen(function*() {
    const answer = yield* Deferred.make<number, unknown>()
    if (allowance <= 0) yield* Deferred.succeed(answer, 0)
    let read = 0
    yield* request.stream.pipe(
      Stream.interruptWhen(Effect.zipRight(Deferred.await(answer).pipe(Effect.ignore), Effect.sleep(lingerMillis))),
      Stream.runForEach((chunk) => {
        if (read > allowance) return Effect.void
        read += chunk.byteLength
        if (read > allowance) return Deferred.succeed(answer, read)
        take(chunk)
        return Effect.void
      }),
      Effect.exit,
      Effect.flatMap((exit) => Deferred.done(answer, Exit.as(exit, read))),
      Effect.forkDaemon
    )
    return yield* Deferred.await(answer)
  })

/** Reads and drops what is left of a body being refused: up to `allowance` bytes before the reply, then as readBounded. */
export const dropRest = (request: HttpServerRequest.HttpServerRequest, allowance: number) =>
  Effect.ignore(readBounded(request, allowance, () => {}))
