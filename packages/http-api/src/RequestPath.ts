import { HttpApp, HttpServerResponse } from "@effect/platform"
import { type DomainError, keptBy, type Principal, quote } from "@herald/core"
import { Context, Effect, type Either, FiberRef, JSONSchema, Layer, Option, ParseResult, Schema, Scope } from "effect"
import { failWith } from "./HttpErrors.js"

/**
 * The request path: where Herald's REST and admin handlers step around a cost of
 * `@effect/platform`'s HttpApiBuilder that showed in a request's CPU. Each shortcut is here, once,
 * with why it exists; bench/README.md ("HTTP") has the measurements behind each, and none changes
 * what a request answers. A handler is written against this module the plain way:
 *
 * - **The caller** (`CurrentPrincipal`, `asCaller`). Authentication sets the principal behind the
 *   request's API key in a FiberRef (`authenticateAs`) instead of providing it as the middleware's
 *   service: HttpApiBuilder provides a middleware's service by copying the request's whole context
 *   and running the rest of the request in a region that swaps it in and out, on every request.
 *   The price: nothing checks at compile time that an endpoint reading the caller declares
 *   Authentication; one that did not dies (a 500), never runs as nobody. A handler reads the
 *   caller with `yield* CurrentPrincipal`, or runs a use case as the caller with
 *   `asCaller((principal) => useCase(principal, ...))`, which also answers its domain errors.
 *
 * - **Only the services named** (`groupContext`, `withOnly`). Every provide, scope and route on a
 *   request's way copies the fiber's whole context, and HttpApiBuilder merges whatever a handler
 *   group was built with into every request it serves; built inside the engine, that is about
 *   fifty services per copy. A handler group lists the services its handlers use, once, at its
 *   end: `HttpApiBuilder.group(...).pipe(groupContext(Authentication, PostStore, ...))`. The list
 *   is checked by the compiler (a group needing a service it does not name does not compile).
 *   The server starts each request from its scope and the router's defaults alone (`withOnly`, in
 *   HttpApiLive.ts).
 *
 * - **Queries decoded once per distinct query** (`queryStruct`). HttpApiBuilder decodes an
 *   endpoint's query on every request, and with the strict options (every invalid parameter
 *   named) that decode showed in a cached GET. Decoding is pure, so a query seen before gets the
 *   same value, or the same issues, again. An endpoint declares its query as
 *   `setUrlParams(queryStruct(Schema.Struct({ ... })))`; the OpenAPI parameters are the struct's.
 *
 * - **Replies sent as they are** (`AsIs`, `replyAsIs`, `replyKept`). A reply schema without a
 *   transformation encodes to the value itself, so HttpApiBuilder's encode only checks again ids
 *   and literals the domain types guarantee, and matching a reply against a union of successes to
 *   find its status costs more than writing a post. A handler whose reply is its own JSON returns
 *   `replyAsIs(Schema, value, status)`; `AsIs` stops it compiling once the schema gains a
 *   transformation. A list the use case hands out again while it is unchanged keeps its bytes too
 *   (`replyKept`).
 *
 * - **Reply headers one by one** (`replyHeaders`). `HttpServerResponse.setHeaders` spreads both
 *   header sets into a new object and lowercases every name; headers put on every reply (the
 *   rate limit's) go on with one `setHeader` each, names given in lower case.
 */

// ---------------------------------------------------------------------------------------------
// The caller
// ---------------------------------------------------------------------------------------------

const currentPrincipal = FiberRef.unsafeMake<Option.Option<Principal>>(Option.none())

/** The caller behind the request's API key (a defect on an endpoint without Authentication). */
export const CurrentPrincipal: Effect.Effect<Principal> = Effect.flatMap(
  FiberRef.get(currentPrincipal),
  Option.match({
    onNone: () => Effect.dieMessage("CurrentPrincipal read on an endpoint without the Authentication middleware"),
    onSome: Effect.succeed
  })
)

/** For Authentication alone: the principal the rest of this request (and the fibers it forks) runs as. */
export const authenticateAs = (principal: Principal): Effect.Effect<void> => FiberRef.set(currentPrincipal, Option.some(principal))

/** A use case run as the request's caller, its domain errors answered as their replies. */
export const asCaller = <A, E extends DomainError, R>(useCase: (principal: Principal) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(CurrentPrincipal, useCase).pipe(Effect.catchAll(failWith))

// ---------------------------------------------------------------------------------------------
// Only the services named
// ---------------------------------------------------------------------------------------------

type Named<Tags extends ReadonlyArray<Context.Tag<any, any>>> = Context.Tag.Identifier<Tags[number]> // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Runs `effect` in only the named services of the context it is run in, in place of that context:
 * Effect.provide would add them to it. The names are checked: the effect must need nothing else.
 */
export const withOnly = <const Tags extends ReadonlyArray<Context.Tag<any, any>>>(...tags: Tags) => // eslint-disable-line @typescript-eslint/no-explicit-any
<A, E>(effect: Effect.Effect<A, E, Named<Tags>>): Effect.Effect<A, E, Named<Tags>> =>
  Effect.flatMap(
    Effect.context<Named<Tags>>(),
    (context) => Effect.mapInputContext(effect, (_: Context.Context<never>) => Context.pick(...tags)(context))
  )

/**
 * A handler group's layer built with only the services named (`withOnly`), however many its
 * surroundings hold, so that is all it merges into each request. It is built into the same memo
 * map as the layers around it, so the router it adds its routes to is the one the API serves.
 */
export const groupContext = <const Tags extends ReadonlyArray<Context.Tag<any, any>>>(...tags: Tags) => // eslint-disable-line @typescript-eslint/no-explicit-any
<ROut, E>(group: Layer.Layer<ROut, E, Named<Tags>>) =>
  Layer.scopedContext(Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const memoMap = yield* Layer.CurrentMemoMap
    return yield* withOnly(...tags)(Layer.buildWithMemoMap(group, memoMap, scope))
  }))

// ---------------------------------------------------------------------------------------------
// Queries decoded once per distinct query
// ---------------------------------------------------------------------------------------------

/** Distinct queries whose decoding is kept before the memo starts over (queries come from clients). */
const queryMemoCapacity = 1_000

/**
 * A query struct reporting every invalid parameter, decoded once per distinct query. Unknown
 * parameters never reach it: RequestUrlGuard refuses them on every endpoint, from the parameters
 * this struct declares. It is declared with the struct's own JSON schema, so OpenAPI lists the
 * same parameters (query structs stay anonymous: OpenAPI lists their fields as parameters only
 * when they are inlined).
 */
export const queryStruct = <A, I extends Readonly<Record<string, unknown>>>(struct: Schema.Schema<A, I>): Schema.Schema<A, I> => {
  const strictStruct = struct.annotations({ parseOptions: { errors: "all" } })
  const decode = ParseResult.decodeUnknownEither(strictStruct)
  const encode = ParseResult.encodeUnknownEither(strictStruct)
  const { $schema: _, ...jsonSchema } = JSONSchema.make(strictStruct)
  let memo = new Map<string, Either.Either<A, ParseResult.ParseIssue>>()
  return Schema.declare([], {
    decode: () => (input) => {
      const key = JSON.stringify(input)
      const known = memo.get(key)
      if (known !== undefined) return known
      // HttpApiBuilder hands a declaration every value in an array (a struct gets a lone value as
      // it came): a lone value goes back to how the struct would have had it.
      const decoded = decode(Object.fromEntries(
        Object.entries(input as Readonly<Record<string, unknown>>).map(([name, value]) => [
          name,
          Array.isArray(value) && value.length === 1 ? value[0] : value
        ])
      ))
      if (memo.size >= queryMemoCapacity) memo = new Map()
      memo.set(key, decoded)
      return decoded
    },
    encode: () => (value) => encode(value)
  }, { jsonSchema })
}

/**
 * Decimal digits only: NumberFromString alone reads JavaScript's number syntax, so 0x10 would be
 * 16, 1e2 100 and " 10" 10. A sign is let through for the range check to name a negative value.
 */
const decimalDigits = Schema.String.pipe(Schema.pattern(/^-?\d+$/, {
  message: (issue) => `Expected an integer in decimal digits, actual ${quote(String(issue.actual))}`
}))

/**
 * An integer query parameter within [min, max], documented as one (type integer, minimum, maximum
 * and the default its handler applies) though it arrives as text; a generated client then takes a
 * number. The description goes inside the JSON Schema annotation, which replaces the generated one.
 */
export const integerFromQuery = (min: number, max: number, fallback: number, description: string) =>
  Schema.compose(decimalDigits, Schema.NumberFromString).pipe(Schema.int(), Schema.between(min, max)).annotations({
    jsonSchema: { type: "integer", minimum: min, maximum: max, default: fallback, description }
  })

// ---------------------------------------------------------------------------------------------
// Replies sent as they are, headers one by one
// ---------------------------------------------------------------------------------------------

/**
 * A schema's values when they are already their own encoded (JSON) form, i.e. it has no
 * transformation; never otherwise, so a reply sent as is stops compiling if one is added.
 */
export type AsIs<S extends Schema.Schema.Any> = [S["Type"]] extends [S["Encoded"]]
  ? [S["Encoded"]] extends [S["Type"]] ? S["Type"] : never
  : never

/** A value of `schema` sent as its JSON without the schema's encode (the schema names what the reply is). */
export const replyAsIs = <S extends Schema.Schema.Any>(_schema: S, value: AsIs<S>, status = 200) =>
  HttpServerResponse.unsafeJson(value, { status })

const keptBody = keptBy<Uint8Array>()

/**
 * `replyAsIs` with the bytes kept (core's `keptBy`): `owner` is an object the use case hands out
 * again while the value is unchanged (a list's rows array), and `parts` what else the value is
 * made of (compared by identity: an equal part that is another object only costs a rebuild).
 */
export const replyKept = <S extends Schema.Schema.Any>(
  _schema: S,
  value: AsIs<S>,
  owner: object,
  parts: ReadonlyArray<unknown>
) => HttpServerResponse.uint8Array(keptBody(owner, parts, () => Buffer.from(JSON.stringify(value))), { contentType: "application/json" })

/**
 * These headers (names in lower case) on the reply, whatever it turns out to be (success or
 * error), one setHeader each.
 */
export const replyHeaders = (...headers: ReadonlyArray<readonly [name: string, value: string]>) =>
  HttpApp.appendPreResponseHandler((_request, response) => {
    let reply = response
    for (const [name, value] of headers) reply = HttpServerResponse.setHeader(reply, name, value)
    return Effect.succeed(reply)
  })
