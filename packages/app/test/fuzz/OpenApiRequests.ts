import { FastCheck as fc } from "effect"
import type { RawRequest } from "./RawExchange.js"

/**
 * Requests generated from an OpenAPI 3.1 document: for every operation, values drawn from its
 * parameter and body schemas (valid-ish, with real ids and keys where the caller knows some), then
 * mutated the ways careless clients and attackers do: wrong types, missing and unknown fields,
 * hostile and huge strings, deep nesting, broken JSON and multipart, wrong content types, odd
 * queries and paths, oversized heads.
 */

/** A JSON Schema as the document serves it, read loosely. */
type JsonSchema = { readonly [keyword: string]: unknown }

interface ParameterObject {
  readonly name: string
  readonly in: string
  readonly required?: boolean
  readonly schema?: JsonSchema
}
interface OperationObject {
  readonly parameters?: ReadonlyArray<ParameterObject>
  readonly requestBody?: { readonly content: Readonly<Record<string, { readonly schema?: JsonSchema }>> }
  readonly security?: ReadonlyArray<Readonly<Record<string, unknown>>>
}
export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, OperationObject>>>>
  readonly components?: { readonly schemas?: Readonly<Record<string, JsonSchema>> }
  readonly security?: ReadonlyArray<Readonly<Record<string, unknown>>>
}

export interface Operation {
  readonly method: string
  /** The path template, e.g. /api/v1/posts/{id}. */
  readonly path: string
  readonly parameters: ReadonlyArray<ParameterObject>
  readonly bodies: ReadonlyArray<{ readonly contentType: string; readonly schema: JsonSchema }>
  /** The security scheme it names (bearer, adminToken), or null when it takes no credentials. */
  readonly scheme: string | null
  readonly schemas: Readonly<Record<string, JsonSchema>>
}

const methods = ["get", "post", "put", "patch", "delete"]

/** Every operation of the document. */
export const operationsOf = (document: OpenApiDocument): ReadonlyArray<Operation> =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).filter(([method]) => methods.includes(method)).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: operation.parameters ?? [],
      bodies: Object.entries(operation.requestBody?.content ?? {}).map(([contentType, media]) => ({
        contentType,
        schema: media.schema ?? {}
      })),
      scheme: Object.keys((operation.security ?? document.security ?? [])[0] ?? {})[0] ?? null,
      schemas: document.components?.schemas ?? {}
    })))

/** What the caller knows of the server it fuzzes. */
export interface FuzzWorld {
  /** Real credentials by security scheme name; the first ones are used most. */
  readonly credentials: Readonly<Record<string, ReadonlyArray<string>>>
  /** Credentials that must be refused (revoked keys, another scheme's token). */
  readonly refusedCredentials: ReadonlyArray<string>
  /**
   * Real values for a parameter or body field of an operation (ids, account refs, tickets), read
   * as each request is generated, so pools that grow during the run are used.
   */
  readonly known: (operation: Operation, name: string) => ReadonlyArray<string>
  /** Files for binary multipart fields. */
  readonly files: ReadonlyArray<{ readonly name: string; readonly type: string; readonly bytes: Buffer }>
}

/** One generated request and the operation it was made for. */
export interface FuzzRequest {
  readonly operation: string
  readonly raw: RawRequest
}

/** Strings that have broken servers: NUL, lone surrogates, direction marks, huge, escapes. */
const hostileStrings: ReadonlyArray<string> = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "x\ud800y",
  "\udc00\ud800",
  "\u202eevil\u202c",
  "\u200f\u200e\u2066",
  "\ufeff",
  "\ufffe\uffff",
  "%00",
  "a%00b",
  "\r\nX-Injected: 1",
  "\\u0000",
  "'; DROP TABLE posts; --",
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "",
  " ",
  "null",
  "-1",
  "9".repeat(400),
  "x".repeat(10_000),
  "é".repeat(10_001),
  "\u{1F600}".repeat(5_001),
  "a\u0301".repeat(3_000)
]

/** Percent-encoded forms that decode to something hostile (or do not decode at all). */
const hostileEscapes = ["%00", "a%00b", "%ED%A0%80", "%ED%BF%BF", "%C0%80", "%FF", "%ZZ", "%", "%2F..%2F", "%E2%80%AE", "%0D%0A"]

const nestingDepths = [65, 100, 1_000, 5_000, 10_000]

const pick = <A>(items: ReadonlyArray<A>) => fc.nat().map((index) => items[index % items.length]!)

/** One of the world's known values for `name` (read at generation time), or `fallback` when it has none. */
const knownValue = <A>(world: FuzzWorld, operation: Operation, name: string, fallback: fc.Arbitrary<A>) =>
  fc.nat().chain((index): fc.Arbitrary<A | string> => {
    const known = world.known(operation, name)
    return known.length === 0 ? fallback : fc.constant(known[index % known.length]!)
  })

/** Mostly a known value for `name`, sometimes `fallback`. */
const knownOr = <A>(world: FuzzWorld, operation: Operation, name: string | undefined, fallback: fc.Arbitrary<A>) =>
  name === undefined
    ? fallback
    : fc.oneof({ weight: 9, arbitrary: knownValue(world, operation, name, fallback) }, { weight: 1, arbitrary: fallback })

const resolve = (operation: Operation, schema: JsonSchema): JsonSchema => {
  const ref = schema["$ref"]
  if (typeof ref !== "string") return schema
  const target = operation.schemas[ref.replace("#/components/schemas/", "")]
  if (target === undefined) throw new Error(`unresolved ${ref}`)
  const { $ref: _ref, ...rest } = schema
  return resolve(operation, { ...target, ...rest })
}

const words = fc.constantFrom("Launch day", "hello world", "New post", "café ☕", "#tag @someone", "https://example.com/x", "12:00")

const plainString = (schema: JsonSchema) => {
  const maxLength = typeof schema["maxLength"] === "number" ? Math.min(schema["maxLength"], 60) : 60
  const minLength = typeof schema["minLength"] === "number" ? Math.min(schema["minLength"], maxLength) : 0
  return fc.oneof(words, fc.string({ minLength, maxLength })).filter((text) => text.length >= minLength)
}

/** A value the schema describes (valid-ish: known values where there are some, bounded sizes). */
const valueOf = (
  world: FuzzWorld,
  operation: Operation,
  raw: JsonSchema,
  name?: string,
  depth = 0
): fc.Arbitrary<unknown> => {
  const schema = resolve(operation, raw)
  const recurse = (child: JsonSchema, childName: string | undefined) => valueOf(world, operation, child, childName, depth + 1)
  if (Array.isArray(schema["enum"])) return fc.constantFrom(...(schema["enum"] as Array<unknown>))
  for (const keyword of ["anyOf", "oneOf"]) {
    if (Array.isArray(schema[keyword])) return fc.oneof(...(schema[keyword] as Array<JsonSchema>).map((option) => recurse(option, name)))
  }
  if (Array.isArray(schema["allOf"])) {
    const { allOf, ...rest } = schema
    return valueOf(world, operation, Object.assign({}, ...(allOf as Array<JsonSchema>).map((part) => resolve(operation, part)), rest), name, depth)
  }
  switch (schema["type"]) {
    case "string": {
      const own = typeof schema["pattern"] === "string"
        ? fc.stringMatching(new RegExp(schema["pattern"]))
        : schema["format"] === "uuid"
        ? fc.uuid()
        : plainString(schema)
      return knownOr(world, operation, name, own)
    }
    case "integer":
      return fc.integer({
        min: typeof schema["minimum"] === "number" ? schema["minimum"] : -5,
        max: typeof schema["maximum"] === "number" ? Math.min(schema["maximum"], 1_000_000) : 10_000
      })
    case "number":
      return fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true })
    case "boolean":
      return fc.boolean()
    case "null":
      return fc.constant(null)
    case "array": {
      const items = (schema["items"] ?? {}) as JsonSchema
      const minLength = typeof schema["minItems"] === "number" ? schema["minItems"] : 0
      const maxLength = Math.max(minLength, Math.min(typeof schema["maxItems"] === "number" ? schema["maxItems"] : 2, 2))
      return depth > 6 ? fc.constant([]) : fc.array(recurse(items, name), { minLength, maxLength })
    }
    case "object": {
      const properties = (schema["properties"] ?? {}) as Readonly<Record<string, JsonSchema>>
      const required = (schema["required"] ?? []) as ReadonlyArray<string>
      if (depth > 6) return fc.constant({})
      // An optional field is sent one time in four, or three in four when the world knows real
      // values for it: a body with every field filled in breaks some platform's rule nearly
      // always, and then nothing past validation is reached.
      const entries = Object.entries(properties).map(([key, child]) => {
        const field = recurse(child, key).map((value) => [key, value] as const)
        if (required.includes(key)) return field
        const sent = world.known(operation, key).length > 0 ? 3 : 1
        return fc.oneof({ weight: 4 - sent, arbitrary: fc.constant(null) }, { weight: sent, arbitrary: field })
      })
      return fc.tuple(...entries).map((chosen) => Object.fromEntries(chosen.filter((entry) => entry !== null)))
    }
    default:
      return knownOr(world, operation, name, fc.jsonValue({ maxDepth: 2 }))
  }
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/** The nodes of a JSON value, each with a function that rebuilds the whole value around a replacement. */
const nodesOf = (value: Json): Array<{ readonly node: Json; readonly replace: (next: Json | undefined) => Json }> => {
  const nodes: Array<{ node: Json; replace: (next: Json | undefined) => Json }> = []
  const walk = (node: Json, rebuild: (next: Json | undefined) => Json) => {
    nodes.push({ node, replace: rebuild })
    if (Array.isArray(node)) {
      node.forEach((child: Json, index: number) =>
        walk(child, (next) => rebuild(next === undefined ? node.filter((_, at) => at !== index) : node.map((item, at) => at === index ? next : item))))
    } else if (node !== null && typeof node === "object") {
      const object = node as { readonly [key: string]: Json }
      for (const key of Object.keys(object)) {
        walk(object[key]!, (next) => {
          const { [key]: _old, ...others } = object
          return rebuild(next === undefined ? others : { ...object, [key]: next })
        })
      }
    }
  }
  walk(value, (next) => next ?? null)
  return nodes
}

/** Stands for the node a nesting mutation wraps, replaced in the serialized text (JSON.stringify would overflow). */
const nestingMark = "\u0000fuzz-nesting\u0000"

const serialize = (value: Json) => JSON.stringify(value) ?? ""

const wrongTypes: ReadonlyArray<Json> = [null, 0, -1, 1.5, 1e308, true, "", "text", [], {}, [null], { "": null }]

/** How one JSON value is changed and serialized; most values pass unchanged. */
const jsonMutation: fc.Arbitrary<(value: Json) => string> = fc.oneof(
  { weight: 16, arbitrary: fc.constant((value: Json) => serialize(value)) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.nat(), pick(wrongTypes)).map(([at, wrong]) => (value: Json) => {
      const nodes = nodesOf(value)
      return serialize(nodes[at % nodes.length]!.replace(wrong))
    })
  },
  {
    weight: 2,
    arbitrary: fc.nat().map((at) => (value: Json) => {
      const nodes = nodesOf(value).slice(1)
      return serialize(nodes.length === 0 ? value : nodes[at % nodes.length]!.replace(undefined))
    })
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.nat(), fc.constantFrom("unknown_field", "__proto__", "constructor", "Caption", "caption ", "id"), fc.jsonValue({ maxDepth: 1 }))
      .map(([at, key, extra]) => (value: Json) => {
        const objects = nodesOf(value).filter(({ node }) => node !== null && typeof node === "object" && !Array.isArray(node))
        if (objects.length === 0) return serialize(value)
        const { node, replace } = objects[at % objects.length]!
        return serialize(replace({ ...(node as object), [key]: extra as Json }))
      })
  },
  {
    weight: 4,
    arbitrary: fc.tuple(fc.nat(), pick(hostileStrings)).map(([at, hostile]) => (value: Json) => {
      const strings = nodesOf(value).filter(({ node }) => typeof node === "string")
      return serialize(strings.length === 0 ? value : strings[at % strings.length]!.replace(hostile))
    })
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat(), pick(nestingDepths), fc.boolean()).map(([at, depth, asObjects]) => (value: Json) => {
      const nodes = nodesOf(value)
      const { node, replace } = nodes[at % nodes.length]!
      const [open, close] = asObjects ? ["{\"a\":", "}"] : ["[", "]"]
      return serialize(replace(nestingMark)).replace(serialize(nestingMark), open.repeat(depth) + serialize(node) + close.repeat(depth))
    })
  }
)

const utf8 = (text: string) => Buffer.from(text, "utf8")

/** How the serialized JSON is broken on the wire; most bodies are sent as they are. */
const jsonBytes = (text: string): fc.Arbitrary<Buffer> =>
  fc.oneof(
    { weight: 24, arbitrary: fc.constant(utf8(text)) },
    { weight: 1, arbitrary: fc.nat().map((cut) => utf8(text.slice(0, cut % Math.max(1, text.length)))) },
    { weight: 1, arbitrary: pick(["}", "]", ",", " x", "\u0000", "{}"]).map((tail) => utf8(text + tail)) },
    { weight: 1, arbitrary: pick([[0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xc0, 0x80], [0xed, 0xa0, 0x80]]).map((bytes) => Buffer.concat([Buffer.from(bytes), utf8(text)])) },
    { weight: 1, arbitrary: fc.constant(Buffer.from(text, "latin1")) },
    {
      weight: 1,
      arbitrary: pick([
        "",
        "null",
        "[]",
        "\"caption\"",
        "NaN",
        "{\"caption\":\"a\",\"caption\":\"b\"}",
        "{\"a\":" + "[".repeat(5_000) + "]".repeat(5_000) + "}",
        "{".repeat(20_000),
        " ".repeat(100_000) + "{}",
        "{\"caption\":\"\\ud800\"}",
        "{\"caption\":\"\\u0000\"}"
      ]).map(utf8)
    },
    // Over the 64 KiB limit of the admin and media JSON bodies, under the 4x docs/api.md promises to read.
    { weight: 1, arbitrary: fc.constant(utf8(" ".repeat(200_000) + text)) }
  )

type FuzzFile = FuzzWorld["files"][number]
type FormField = readonly [string, string | FuzzFile]

/** A multipart body of `fields`, with its boundary. */
export const multipart = (fields: ReadonlyArray<FormField>, boundary = "fuzz-boundary-7MA4YWxk") => ({
  boundary,
  body: Buffer.concat([
    ...fields.flatMap(([name, value]) =>
      typeof value === "string"
        ? [utf8(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)]
        : [
          utf8(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.name}"\r\nContent-Type: ${value.type}\r\n\r\n`),
          value.bytes,
          utf8("\r\n")
        ]
    ),
    utf8(`--${boundary}--\r\n`)
  ])
})

const multipartBody = (world: FuzzWorld, operation: Operation, schema: JsonSchema) => {
  const properties = Object.entries((resolve(operation, schema)["properties"] ?? {}) as Record<string, JsonSchema>)
  const field = ([name, child]: [string, JsonSchema]): fc.Arbitrary<FormField> =>
    child["format"] === "binary"
      ? pick(world.files).map((file) => [name, file] as const)
      : fc.oneof({ weight: 3, arbitrary: knownOr(world, operation, name, plainString(child)) }, { weight: 1, arbitrary: pick(hostileStrings) })
        .map((value) => [name, String(value)] as const)
  return fc.tuple(
    fc.tuple(...properties.map((entry) => fc.option(field(entry), { freq: 3 }))),
    fc.oneof(
      { weight: 8, arbitrary: fc.constant("as is") },
      { weight: 1, arbitrary: fc.constant("unknown field") },
      { weight: 1, arbitrary: fc.constant("no closing boundary") },
      { weight: 1, arbitrary: fc.constant("other boundary") }
    )
  ).map(([chosen, mutation]) => {
    const fields = chosen.filter((entry) => entry !== null)
    const { body, boundary } = multipart(mutation === "unknown field" ? [...fields, ["unknown_field", "x"]] : fields)
    return {
      contentType: `multipart/form-data; boundary=${mutation === "other boundary" ? "not-the-boundary" : boundary}`,
      body: mutation === "no closing boundary" ? body.subarray(0, body.length - boundary.length - 6) : body
    }
  })
}

const csvCell = (value: string) => /[",\r\n]/.test(value) ? `"${value.replaceAll("\"", "\"\"")}"` : value

const csvBody = (world: FuzzWorld, operation: Operation) =>
  fc.array(
    fc.tuple(
      fc.oneof({ weight: 3, arbitrary: words }, { weight: 1, arbitrary: pick(hostileStrings) }),
      knownOr(world, operation, "accounts", words),
      fc.option(knownOr(world, operation, "idempotency_key", words))
    ),
    { minLength: 1, maxLength: 4 }
  ).chain((rows) =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constant("as is") },
      { weight: 1, arbitrary: fc.constant("unclosed quote") },
      { weight: 1, arbitrary: fc.constant("no header") }
    ).map((mutation) => {
      const lines = rows.map(([caption, accounts, key]) => [csvCell(caption), csvCell(String(accounts)), csvCell(key ?? "")].join(","))
      const text = [...(mutation === "no header" ? [] : ["caption,accounts,idempotency_key"]), ...lines].join("\r\n") + "\r\n"
      return utf8(mutation === "unclosed quote" ? text + "\"never closed,x:y\r\n" : text)
    })
  )

/** A body for one of the operation's content types, and the content type it is sent with. */
const bodyOf = (world: FuzzWorld, operation: Operation) =>
  fc.constantFrom(...operation.bodies).chain(({ contentType, schema }) => {
    if (contentType === "multipart/form-data") return multipartBody(world, operation, schema)
    if (contentType === "text/csv") return csvBody(world, operation).map((body) => ({ contentType, body }))
    return fc.tuple(valueOf(world, operation, schema), jsonMutation)
      .chain(([value, mutate]) => jsonBytes(mutate(value as Json)))
      .map((body) => ({ contentType, body }))
  })

/** The Content-Type sent: usually the right one, sometimes a wrong, broken or missing one. */
const contentTypeOf = (proper: string) =>
  fc.oneof(
    { weight: 14, arbitrary: fc.constant<string | null>(proper) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<string | null>(
        null,
        "text/plain",
        "application/json; charset=latin1",
        "application/json; charset=utf-16",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "multipart/form-data; boundary=",
        "multipart/form-data; boundary=\"unterminated",
        "text/csv",
        "application/json",
        "*/*",
        ";;;",
        "application/json; application/json"
      )
    }
  )

/** Percent-encodes a value; lone surrogates, which encodeURIComponent refuses, as the replacement character. */
const encode = (value: string) => {
  try {
    return encodeURIComponent(value)
  } catch {
    return [...utf8(value)].map((byte) => `%${byte.toString(16).padStart(2, "0").toUpperCase()}`).join("")
  }
}

/** A path parameter: a known id most of the time, else a random uuid or something hostile. */
const pathValue = (world: FuzzWorld, operation: Operation, name: string) =>
  fc.oneof(
    { weight: 12, arbitrary: knownValue(world, operation, name, fc.uuid()).map(encode) },
    { weight: 2, arbitrary: fc.uuid().map(encode) },
    { weight: 1, arbitrary: pick(hostileEscapes) },
    { weight: 1, arbitrary: pick(hostileStrings).map(encode) }
  )

const queryValue = (world: FuzzWorld, operation: Operation, parameter: ParameterObject) =>
  fc.oneof(
    { weight: 10, arbitrary: valueOf(world, operation, parameter.schema ?? { type: "string" }, parameter.name).map((value) => encode(String(value))) },
    { weight: 1, arbitrary: pick(hostileEscapes) },
    { weight: 1, arbitrary: pick(hostileStrings).map(encode) }
  )

/** The query string: the documented parameters (sometimes missing or repeated), sometimes an unknown one. */
const queryOf = (world: FuzzWorld, operation: Operation) => {
  const parameters = operation.parameters.filter((parameter) => parameter.in === "query")
  return fc.tuple(
    fc.tuple(...parameters.map((parameter) =>
      fc.tuple(
        fc.oneof(
          { weight: 10, arbitrary: fc.constant(parameter.required === true ? 1 : 0) },
          { weight: 5, arbitrary: fc.constant(1) },
          { weight: 1, arbitrary: fc.constant(2) }
        ),
        queryValue(world, operation, parameter),
        queryValue(world, operation, parameter)
      ).map(([times, first, second]) => [first, second].slice(0, times).map((value) => `${parameter.name}=${value}`))
    )),
    fc.oneof(
      { weight: 12, arbitrary: fc.constant<ReadonlyArray<string>>([]) },
      { weight: 1, arbitrary: fc.constant(["pad=1"]) },
      { weight: 1, arbitrary: pick([["%00=1"], ["=x"], ["&&"], ["a=%ZZ"], [encode("\ud800") + "=1"], ["x".repeat(3_000) + "=1"]]) }
    )
  ).map(([known, extra]) => {
    const pairs = [...known.flat(), ...extra]
    return pairs.length === 0 ? "" : `?${pairs.join("&")}`
  })
}

const latin1Values = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((code) => code !== 0x7f).map((code) => String.fromCharCode(code)), maxLength: 40 })

/** The Authorization header(s) for the operation's scheme: real credentials most of the time. */
const authorizationOf = (world: FuzzWorld, operation: Operation) => {
  const real = operation.scheme === null ? [] : world.credentials[operation.scheme] ?? []
  const refused = [...world.refusedCredentials, ...Object.entries(world.credentials).filter(([scheme]) => scheme !== operation.scheme).flatMap(([, values]) => values)]
  return fc.oneof(
    { weight: real.length === 0 ? 0 : 16, arbitrary: pick(real.length === 0 ? [""] : real).map((token) => [`Bearer ${token}`]) },
    { weight: 2, arbitrary: fc.constant<ReadonlyArray<string>>([]) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        pick(refused.length === 0 ? ["nothing"] : refused).map((token) => [`Bearer ${token}`]),
        fc.constantFrom(["Bearer "], ["Bearer"], ["Basic dXNlcjpwYXNz"], ["bearer hk_human_x"], ["Bearer hk_human_" + "A".repeat(40)]),
        latin1Values.map((value) => [value]),
        pick(real.length === 0 ? [""] : real).map((token) => [`Bearer ${token}`, `Bearer ${token}`])
      )
    }
  )
}

/** Extra headers: none mostly; sometimes odd ones, many, or a head far over any limit. */
const extraHeaders = fc.oneof(
  { weight: 30, arbitrary: fc.constant<ReadonlyArray<readonly [string, string]>>([]) },
  { weight: 2, arbitrary: latin1Values.map((value) => [["x-fuzz", value]] as const) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<ReadonlyArray<readonly [string, string]>>(
      [["content-encoding", "gzip"]],
      [["accept", "text/html"]],
      [["x-forwarded-for", "127.0.0.1, ::1"]],
      [["idempotency-key", "\u00ff\u00fe"]],
      Array.from({ length: 150 }, (_, index) => [`x-many-${index}`, "v"] as const),
      [["x-large", "a".repeat(20_000)]],
      [["x-huge", "a".repeat(100_000)]]
    )
  }
)

/** Requests for one operation. */
const requestsOf = (world: FuzzWorld, operation: Operation): fc.Arbitrary<FuzzRequest> => {
  const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!)
  const body = operation.bodies.length === 0
    ? fc.oneof(
      { weight: 10, arbitrary: fc.constant<{ contentType: string | null; body: Buffer | undefined }>({ contentType: null, body: undefined }) },
      { weight: 1, arbitrary: fc.constant({ contentType: "application/json", body: utf8("{\"unexpected\":true}") }) }
    )
    : bodyOf(world, operation).chain(({ body, contentType }) => contentTypeOf(contentType).map((sent) => ({ contentType: sent, body })))
  return fc.record({
    values: fc.tuple(...names.map((name) => pathValue(world, operation, name))),
    query: queryOf(world, operation),
    body,
    authorization: authorizationOf(world, operation),
    extra: extraHeaders
  }).map(({ authorization, body, extra, query, values }) => {
    const path = names.reduce((template, name, index) => template.replace(`{${name}}`, values[index]!), operation.path) + query
    const headers: Array<readonly [string, string]> = [
      ...authorization.map((value) => ["authorization", value] as const),
      ...(body.contentType === null ? [] : [["content-type", body.contentType] as const]),
      ...extra
    ]
    return { operation: `${operation.method} ${operation.path}`, raw: { method: operation.method, path, headers, body: body.body } }
  })
}

/** Requests across every operation of the documents. */
export const requestsFor = (world: FuzzWorld, operations: ReadonlyArray<Operation>) =>
  fc.oneof(...operations.map((operation) => requestsOf(world, operation)))

const shorten = (text: string, max: number) => text.length <= max ? text : `${text.slice(0, max)}…(${text.length} chars)`

/** A request as a person reads it in a failure report (long values cut, control characters escaped). */
export const describeRequest = ({ raw }: FuzzRequest) => {
  const escape = (text: string) => JSON.stringify(text).slice(1, -1)
  const body = raw.body === undefined ? "" : `\n  body: ${escape(shorten(raw.body.toString("utf8"), 400))} (${raw.body.length} bytes)`
  const headers = raw.headers.map(([name, value]) => `\n  ${name}: ${escape(shorten(value, 120))}`).join("")
  return `${raw.method} ${shorten(raw.path, 300)}${headers}${body}`
}
