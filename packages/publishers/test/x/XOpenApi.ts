import { Ajv, type ValidateFunction } from "ajv"
import { readFileSync } from "node:fs"

/**
 * The part of X's OpenAPI document (docs.x.com's openapi.json) that Herald's X publisher uses,
 * kept as a fixture: x-openapi.json. Its schemas are OpenAPI 3.0 dialect; they are read here as
 * JSON Schema (nullable as a null type; the discriminator dropped, its oneOf kept).
 */
export const xOpenApi = JSON.parse(readFileSync(new URL("./x-openapi.json", import.meta.url), "utf8")) as {
  readonly paths: Record<string, Record<string, {
    readonly requestBody?: { readonly content: Record<string, { readonly schema: object }> }
    readonly responses: Record<string, { readonly content?: Record<string, { readonly schema: object }> }>
  }>>
}

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

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true })
ajv.addSchema(asJsonSchema(xOpenApi) as object, "x")

const validators = new Map<string, ValidateFunction>()

const validator = (pointer: string): ValidateFunction => {
  const known = validators.get(pointer)
  if (known !== undefined) return known
  const compiled = ajv.compile({ $ref: `x#${pointer}` })
  validators.set(pointer, compiled)
  return compiled
}

const escape = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1")

/** The errors of `value` against a schema of the document, by JSON pointer; empty when it validates. */
export const violations = (pointer: string, value: unknown): ReadonlyArray<string> => {
  const validate = validator(pointer)
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? "is invalid"}`)
}

/** The request body schema of an operation, as a pointer into the document. */
export const requestSchema = (path: string, method: string, contentType = "application/json") =>
  `/paths/${escape(path)}/${method}/requestBody/content/${escape(contentType)}/schema`

/** The reply schema of an operation for a status (its `default` when the status has none). */
export const replySchema = (path: string, method: string, status: number, contentType = "application/json") => {
  const responses = xOpenApi.paths[path]?.[method]?.responses ?? {}
  const key = String(status) in responses ? String(status) : "default"
  return `/paths/${escape(path)}/${method}/responses/${key}/content/${escape(contentType)}/schema`
}
