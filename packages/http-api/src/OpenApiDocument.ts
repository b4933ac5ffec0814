/**
 * Final touches on the generated OpenAPI document, for what HttpApi does not model:
 * - the rate-limit headers on every reply of an authenticated operation and Retry-After on its 429;
 * - 400 answers with BadRequest only (the platform's own HttpApiDecodeError is reshaped into
 *   BadRequest before it leaves the server, see Failures.ts);
 * - no 413/415 on operations that take no body (the body guard never runs for them);
 * - a description that fits every reply of a status several error classes share (HttpApi takes
 *   the first class's), each class keeping its own on its schema;
 * - the Herald-Project header on every authenticated operation (the admin token acting as a
 *   project's operator, Authentication.ts), a parameter rather than a security scheme: it names
 *   a project, it is no credential;
 * - no `$id` markers that Effect puts on `unknown` schemas (the same $id at many places is invalid
 *   JSON Schema), and no component schema that nothing references (query structs are inlined);
 * - then what both documents get (OpenApiPrecision.ts).
 */
type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

import { adminOperations, adminTags, publicOperations } from "./OperationDocs.js"
import { precise, schemaClosure, schemaRefs } from "./OpenApiPrecision.js"
import { webhooksSection } from "./WebhooksDocument.js"

const rateLimitHeaders: Json = {
  "X-RateLimit-Limit": {
    description: "Requests this key may make per minute.",
    schema: { type: "integer" }
  },
  "X-RateLimit-Remaining": {
    description: "Requests left in the current one-minute window.",
    schema: { type: "integer" }
  },
  "X-RateLimit-Reset": {
    description: "When the current window ends, in seconds since the Unix epoch.",
    schema: { type: "integer" }
  }
}

const retryAfterHeader: Json = {
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    schema: { type: "integer" }
  }
}

/** The operator's header (docs/api.md, "The operator"). */
const projectParameter: Json = {
  HeraldProject: {
    name: "Herald-Project",
    in: "header",
    required: false,
    description: "With the admin token only (Authorization: Bearer hk_admin_..., or the operator's dashboard session): the id of the project " +
      "the request acts on, as that project's operator (a person, every scope, 600 requests a minute). Refused with an API key (400); " +
      "an unknown project is 404 project_not_found.",
    schema: { type: "string", format: "uuid" }
  }
}

const refs = (names: Json) => Object.fromEntries(Object.keys(names).map((name) => [name, { $ref: `#/components/headers/${name}` }]))

const decodeErrorRef = "#/components/schemas/HttpApiDecodeError"

const withoutDecodeError = (schema: Json): Json => {
  const members = Array.isArray(schema.anyOf) ? schema.anyOf.filter((member: Json) => member.$ref !== decodeErrorRef) : null
  return members === null ? schema : members.length === 1 ? members[0] : { ...schema, anyOf: members }
}

/** The description of a status whose replies are several error classes. */
const sharedStatusDescriptions: Readonly<Record<string, string>> = {
  "403": "The key may not do this: a missing scope (named in error), an agent key on approve, or no active plan.",
  "404": "Not found in this key's project; code says what.",
  "409": "The current state forbids this operation; code says which.",
  "413": "The request body is larger than this endpoint accepts.",
  "422": "Refused as sent; code says why.",
  "429": "Rate limit or the key's daily post cap reached; see Retry-After."
}

const errorMembers = (response: Json): number => response.content?.["application/json"]?.schema?.anyOf?.length ?? 1

const finishOperation = (operation: Json): Json => {
  const responses: Json = Object.fromEntries(
    Object.entries(operation.responses as Json).map(([status, response]) => [
      status,
      errorMembers(response) > 1 && sharedStatusDescriptions[status] !== undefined
        ? { ...response, description: sharedStatusDescriptions[status] }
        : response
    ])
  )
  const badRequest = responses["400"]
  if (badRequest?.content?.["application/json"] !== undefined) {
    responses["400"] = {
      description: "The request is invalid; violations names every invalid field.",
      content: { "application/json": { schema: withoutDecodeError(badRequest.content["application/json"].schema) } }
    }
  }
  if (operation.requestBody === undefined) {
    delete responses["413"]
    delete responses["415"]
  }
  const authenticated = Array.isArray(operation.security) && operation.security.length > 0
  if (authenticated) {
    for (const [status, response] of Object.entries(responses)) {
      if (status === "401") continue
      responses[status] = {
        ...(response as Json),
        headers: { ...refs(rateLimitHeaders), ...(status === "429" ? refs(retryAfterHeader) : {}) }
      }
    }
  }
  return authenticated
    ? { ...operation, parameters: [...(operation.parameters ?? []), { $ref: "#/components/parameters/HeraldProject" }], responses }
    : { ...operation, responses }
}

/** The document without Effect's `$id: "/schemas/..."` markers. */
const withoutIdMarkers = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutIdMarkers)
    : value !== null && typeof value === "object"
    ? Object.fromEntries(
      Object.entries(value)
        .filter(([key, inner]) => !(key === "$id" && typeof inner === "string" && inner.startsWith("/schemas/")))
        .map(([key, inner]) => [key, withoutIdMarkers(inner)])
    )
    : value

/** Keeps the component schemas reachable from the paths (directly or through other components). */
const reachableSchemas = (paths: Json, schemas: Json): Json => {
  const reached = schemaClosure(schemaRefs(paths, new Set()), schemas)
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name)))
}

export const finishDocument = (generated: Json): Json => {
  const spec = withoutIdMarkers(generated) as Json
  const paths = Object.fromEntries(
    Object.entries(spec.paths as Json).map(([path, item]) => [
      path,
      Object.fromEntries(Object.entries(item as Json).map(([method, operation]) => [method, finishOperation(operation)]))
    ])
  )
  return precise({
    ...spec,
    paths,
    webhooks: webhooksSection,
    components: {
      ...spec.components,
      schemas: reachableSchemas(paths, spec.components.schemas),
      headers: { ...rateLimitHeaders, ...retryAfterHeader },
      parameters: { ...spec.components.parameters, ...projectParameter }
    }
  }, publicOperations)
}

/** The admin API's document: operation ids, descriptions, examples, shared enums and open replies (OpenApiPrecision.ts). */
export const finishAdminDocument = (generated: Json): Json => ({
  ...precise(generated, adminOperations),
  tags: (generated.tags as Array<Json>).map((tag) => ({ ...tag, description: tag.description ?? adminTags[tag.name] }))
})
