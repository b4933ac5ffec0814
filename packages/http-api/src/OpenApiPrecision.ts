/**
 * What both OpenAPI documents (public and admin) get beyond what HttpApi generates:
 * - each operation's readable operationId, description, request body examples and the request
 *   headers its handler reads itself (OperationDocs.ts);
 * - the enums several schemas share (post status, placement, platform, ...) as named components
 *   instead of the same list inlined at every use;
 * - replies open to added fields: a reply schema without `additionalProperties: false`, so a
 *   client that validates replies survives a field added later (the compatibility policy in
 *   docs/api.md). Request bodies keep it: the server refuses unknown fields. A component used by
 *   both gets an open copy for the replies, named `<name>Reply`.
 */
import {
  AccountStatus,
  ConnectionIssueKind,
  ConnectionRoute,
  ContentFormat,
  DeliveryErrorCategory,
  DeliveryStatus,
  EventKind,
  Placement,
  Platform,
  PostStatus,
  Scope,
  Surface
} from "@herald/core"
import type { OperationDoc } from "./OperationDocs.js"

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** The shared enums, by component name. */
const sharedEnums: ReadonlyArray<readonly [name: string, values: ReadonlyArray<string>, description: string]> = [
  ["PostStatus", PostStatus.literals, "A post's status (docs/lifecycle.md)."],
  ["Placement", Placement.literals, "Where a post appears on a platform with several surfaces."],
  ["Platform", Platform.literals, "A social network."],
  ["Surface", Surface.literals, "Which interface made the request: the REST API, the MCP connector or the SDK."],
  ["DeliveryStatus", DeliveryStatus.literals, "A delivery's status (one delivery per targeted account)."],
  ["ContentFormat", ContentFormat.literals, "A post's format for analytics: feed, reel or story."],
  ["DeliveryErrorCategory", DeliveryErrorCategory.literals, "Why a delivery failed, as a category."],
  ["ConnectionIssueKind", ConnectionIssueKind.literals, "What is wrong with an account's connection."],
  ["ConnectionRoute", ConnectionRoute.literals, "How an account is reached."],
  ["AccountStatus", AccountStatus.literals, "An account's status."],
  ["EventKind", EventKind.literals, "A webhook event kind."],
  ["Scope", Scope.literals, "An API key's scope."]
]

const sameValues = (a: ReadonlyArray<unknown>, b: ReadonlyArray<string>) =>
  a.length === b.length && b.every((value) => a.includes(value))

const schemaRef = (name: string) => `#/components/schemas/${name}`

/** A JSON value with each inline copy of a shared enum replaced by a reference to it. */
const namedEnums = (value: unknown, used: Set<string>): unknown => {
  if (Array.isArray(value)) return value.map((inner) => namedEnums(inner, used))
  if (value === null || typeof value !== "object") return value
  const node = value as Json
  if (Array.isArray(node.enum) && node.type === "string") {
    const shared = sharedEnums.find(([, values]) => sameValues(node.enum, values))
    if (shared !== undefined) {
      used.add(shared[0])
      const { enum: _enum, type: _type, ...rest } = node
      return { $ref: schemaRef(shared[0]), ...rest }
    }
  }
  return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, namedEnums(inner, used)]))
}

/** The component schemas `value` references directly, added to `into`. */
export const schemaRefs = (value: unknown, into: Set<string>): Set<string> => {
  if (Array.isArray(value)) value.forEach((inner) => schemaRefs(inner, into))
  else if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref" && typeof inner === "string" && inner.startsWith("#/components/schemas/")) {
        into.add(inner.slice("#/components/schemas/".length))
      } else schemaRefs(inner, into)
    }
  }
  return into
}

/** `start` grown by every component its members reach. */
export const schemaClosure = (start: Set<string>, schemas: Json): Set<string> => {
  const pending = [...start]
  while (pending.length > 0) {
    for (const name of schemaRefs(schemas[pending.pop()!], new Set())) {
      if (!start.has(name)) {
        start.add(name)
        pending.push(name)
      }
    }
  }
  return start
}

/** A reply schema: no `additionalProperties: false`, references to the components in `copied` moved to their open copies. */
const opened = (value: unknown, copied: ReadonlySet<string>): unknown => {
  if (Array.isArray(value)) return value.map((inner) => opened(inner, copied))
  if (value === null || typeof value !== "object") return value
  return Object.fromEntries(
    Object.entries(value as Json)
      .filter(([key, inner]) => !(key === "additionalProperties" && inner === false))
      .map(([key, inner]) =>
        key === "$ref" && typeof inner === "string" && copied.has(inner.slice("#/components/schemas/".length))
          ? [key, `${inner}Reply`]
          : [key, opened(inner, copied)]
      )
  )
}

const operationsOf = (paths: Json) => Object.values(paths).flatMap((item) => Object.values(item as Json) as Array<Json>)

/** Replies open to added fields (see the module's comment). */
const openReplies = (paths: Json, schemas: Json): { paths: Json; schemas: Json } => {
  const requestSide = schemaClosure(new Set(), schemas)
  for (const operation of operationsOf(paths)) schemaRefs([operation.requestBody, operation.parameters], requestSide)
  schemaClosure(requestSide, schemas)
  const replySide = new Set<string>()
  for (const operation of operationsOf(paths)) schemaRefs(operation.responses, replySide)
  schemaClosure(replySide, schemas)
  // A component both sides use that is closed, or reaches one that is: the replies get an open copy.
  const shared = [...requestSide].filter((name) => replySide.has(name))
  const copied = new Set(shared.filter((name) => JSON.stringify(schemas[name]).includes("\"additionalProperties\":false")))
  for (let grew = true; grew;) {
    grew = false
    for (const name of shared) {
      if (!copied.has(name) && [...schemaRefs(schemas[name], new Set())].some((inner) => copied.has(inner))) {
        copied.add(name)
        grew = true
      }
    }
  }
  const openPaths = Object.fromEntries(Object.entries(paths).map(([path, item]) => [
    path,
    Object.fromEntries(Object.entries(item as Json).map(([method, operation]) => [method, { ...operation, responses: opened(operation.responses, copied) }]))
  ]))
  const openSchemas: Json = {}
  for (const [name, schema] of Object.entries(schemas)) {
    openSchemas[name] = requestSide.has(name) ? schema : opened(schema, copied)
    if (copied.has(name)) openSchemas[`${name}Reply`] = opened(schema, copied)
  }
  return { paths: openPaths, schemas: openSchemas }
}

/** Operation ids, descriptions, request examples and the headers a handler reads from the document's table. */
const describeOperations = (paths: Json, docs: Readonly<Record<string, OperationDoc>>): Json =>
  Object.fromEntries(Object.entries(paths).map(([path, item]) => [
    path,
    Object.fromEntries(Object.entries(item as Json).map(([method, operation]) => {
      const doc = docs[operation.operationId]
      if (doc === undefined) return [method, operation]
      const requestBody = operation.requestBody === undefined ? undefined : {
        ...operation.requestBody,
        content: Object.fromEntries(Object.entries(operation.requestBody.content as Json).map(([type, media]) => [
          type,
          doc.examples?.[type] === undefined ? media : { ...media, example: doc.examples[type] }
        ]))
      }
      const headers = (doc.headers ?? []).map((header) => ({ ...header, in: "header", required: false }))
      return [method, {
        ...operation,
        operationId: doc.id,
        description: doc.description,
        ...(requestBody === undefined ? {} : { requestBody }),
        ...(headers.length === 0 ? {} : { parameters: [...(operation.parameters ?? []), ...headers] })
      }]
    }))
  ]))

/** The document with the touches above (its component schemas included). */
export const precise = (spec: Json, docs: Readonly<Record<string, OperationDoc>>): Json => {
  const used = new Set<string>()
  const paths = namedEnums(describeOperations(spec.paths, docs), used) as Json
  const schemas = namedEnums(spec.components?.schemas ?? {}, used) as Json
  const webhooks = spec.webhooks === undefined ? {} : { webhooks: namedEnums(spec.webhooks, used) }
  for (const [name, values, description] of sharedEnums) {
    if (used.has(name)) schemas[name] = { type: "string", enum: values, description }
  }
  const open = openReplies(paths, schemas)
  return { ...spec, ...webhooks, paths: open.paths, components: { ...spec.components, schemas: open.schemas } }
}
