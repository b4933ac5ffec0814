import { Ajv, type ValidateFunction } from "ajv"
import { readFileSync } from "node:fs"

/** The part of an OpenAPI document the validators read. */
export interface OpenApiPaths {
  readonly paths: Record<string, Record<string, {
    readonly security?: ReadonlyArray<Record<string, ReadonlyArray<string>>>
    readonly requestBody?: { readonly content: Record<string, { readonly schema: object }> }
    readonly responses: Record<string, { readonly content?: Record<string, { readonly schema: object }> }>
  }>>
}

/**
 * OpenAPI 3.0 schemas read as JSON Schema: nullable as a null type, the discriminator dropped
 * (its oneOf or mapping's schemas are kept).
 */
const asJsonSchema = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(asJsonSchema)
  if (node === null || typeof node !== "object") return node
  const entries = Object.entries(node as Record<string, unknown>).filter(([key]) => key !== "discriminator" && key !== "nullable")
  const converted = Object.fromEntries(entries.map(([key, value]) => [key, asJsonSchema(value)]))
  if ((node as { nullable?: unknown }).nullable === true) {
    return typeof converted.type === "string" ? { ...converted, type: [converted.type, "null"] } : { anyOf: [converted, { type: "null" }] }
  }
  return converted
}

const escape = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1")

/**
 * A platform's OpenAPI document kept as a test fixture (the operations Herald calls and what they
 * reference), with validators: a platform's fake checks requests against it, and its tests check
 * the fake's replies.
 */
export const openApiDocument = (file: URL) => {
  const document = JSON.parse(readFileSync(file, "utf8")) as OpenApiPaths
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true })
  ajv.addSchema(asJsonSchema(document) as object, "document")
  const validators = new Map<string, ValidateFunction>()
  const validator = (pointer: string): ValidateFunction => {
    const known = validators.get(pointer)
    if (known !== undefined) return known
    const compiled = ajv.compile({ $ref: `document#${pointer}` })
    validators.set(pointer, compiled)
    return compiled
  }
  return {
    document,
    /** The errors of `value` against a schema of the document, by JSON pointer; empty when it validates. */
    violations: (pointer: string, value: unknown): ReadonlyArray<string> => {
      const validate = validator(pointer)
      return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? "is invalid"}`)
    },
    /** The request body schema of an operation, as a pointer into the document. */
    requestSchema: (path: string, method: string, contentType = "application/json") =>
      `/paths/${escape(path)}/${method}/requestBody/content/${escape(contentType)}/schema`,
    /** The reply schema of an operation for a status (its `default` when the status has none). */
    replySchema: (path: string, method: string, status: number, contentType = "application/json") => {
      const responses = document.paths[path]?.[method]?.responses ?? {}
      const key = String(status) in responses ? String(status) : "default"
      return `/paths/${escape(path)}/${method}/responses/${key}/content/${escape(contentType)}/schema`
    }
  }
}
