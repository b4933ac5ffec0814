import type { SqlError } from "@effect/sql"
import { Effect, type ParseResult } from "effect"

/** Database and row-decoding failures are defects: only domain errors cross a port. */
export const orDieInfra = <A, E, R>(
  self: Effect.Effect<A, E | SqlError.SqlError | ParseResult.ParseError, R>
): Effect.Effect<A, Exclude<E, SqlError.SqlError | ParseResult.ParseError>, R> =>
  Effect.catchIf(
    self,
    (error): error is SqlError.SqlError | ParseResult.ParseError =>
      typeof error === "object" && error !== null && "_tag" in error &&
      (error._tag === "SqlError" || error._tag === "ParseError"),
    Effect.die
  ) as Effect.Effect<A, Exclude<E, SqlError.SqlError | ParseResult.ParseError>, R>
