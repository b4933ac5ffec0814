import { HttpApi, HttpRouter, HttpServerRequest } from "@effect/platform"
import { checkStoredText, refusedCharacter, type Violation } from "@herald/core"
import { Effect, JSONSchema, Layer, Option, type Schema } from "effect"
import { HeraldApi, RequestUrlGuard } from "./Api.js"
import { refusedFields } from "./HttpErrors.js"

interface ObjectJsonSchema {
  readonly properties?: Readonly<Record<string, unknown>>
  readonly $ref?: string
  readonly $defs?: Readonly<Record<string, ObjectJsonSchema>>
}

/** The parameters a query struct declares: the properties of its JSON schema, as OpenAPI lists them. */
const parametersOf = (schema: Schema.Schema<never, unknown>): ReadonlyArray<string> => {
  const json = JSONSchema.make(schema) as ObjectJsonSchema
  const object = json.$ref === undefined ? json : json.$defs?.[json.$ref.replace("#/$defs/", "")]
  if (object?.properties === undefined) throw new Error("a query struct must be a struct: its parameters are its properties")
  return Object.keys(object.properties)
}

/** "METHOD /path/:param" → the query parameters its endpoint declares (none without a query struct). */
const declaredParameters = (api: HttpApi.HttpApi.Any): ReadonlyMap<string, ReadonlySet<string>> => {
  const declared = new Map<string, ReadonlySet<string>>()
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      declared.set(
        `${endpoint.method} ${endpoint.path}`,
        new Set(Option.match(endpoint.urlParamsSchema, { onNone: () => [], onSome: parametersOf }))
      )
    }
  })
  return declared
}

const unknownParameter = (name: string, known: ReadonlySet<string>): Violation => ({
  field: name,
  account: null,
  message: known.size === 0
    ? "is not a parameter of this endpoint, which takes none"
    : `is not a parameter of this endpoint; it takes ${[...known].join(", ")}`
})

/** A value's refusals, named by its parameter (a repeated one by its index too). */
const valueViolations = (name: string, value: unknown): ReadonlyArray<Violation> => {
  const check = checkStoredText(value, [name])
  return check._tag === "Checked" ? check.violations : []
}

/**
 * The URL guard of an API (RequestUrlGuard, and the admin API's): a query parameter the endpoint
 * does not declare, and a path or query value (or parameter name) holding a character that cannot
 * be stored, each answer 400 invalid_request naming the parameter.
 */
export const guardUrls = (api: HttpApi.HttpApi.Any) => {
  const declared = declaredParameters(api)
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { params, route } = yield* HttpRouter.RouteContext
    const search = yield* HttpServerRequest.ParsedSearchParams
    const known = declared.get(`${request.method} ${route.path}`) ?? new Set()
    const names = Object.keys(search)
    if (names.length === 0 && Object.keys(params).length === 0) return
    const violations = [
      ...Object.entries(params).flatMap(([name, value]) => valueViolations(name, value)),
      ...names.flatMap((name): ReadonlyArray<Violation> => {
        const refused = refusedCharacter(name)
        if (refused !== null) return [{ field: "query", account: null, message: `has a parameter name that ${refused}` }]
        return known.has(name) ? valueViolations(name, search[name]) : [unknownParameter(name, known)]
      })
    ]
    if (violations.length > 0) return yield* Effect.fail(refusedFields(violations))
  })
}

export const RequestUrlGuardLive = Layer.sync(RequestUrlGuard, () => guardUrls(HeraldApi))
