import { webhooksSection } from "@herald/http-api"
import { Ajv2020 } from "ajv/dist/2020.js"
import { expect } from "vitest"

/**
 * Checks an event's `data` against the OpenAPI document's `webhooks` section, so the document
 * cannot drift from what the pipeline writes: every field sent is documented (additionalProperties
 * is not set, so this is checked by listing), every documented field is sent, with its type.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const dataSchema = (kind: string): Json =>
  (webhooksSection as Json)[kind].post.requestBody.content["application/json"].schema.properties.data

/** Adds additionalProperties: false to every object schema, so an undocumented field fails. */
const closed = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(closed)
  if (schema === null || typeof schema !== "object") return schema
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, closed(value)]))
  return copy.type === "object" ? { ...copy, additionalProperties: false } : copy
}

export const expectDocumentedWebhook = (event: { readonly kind: string; readonly data: unknown }) => {
  const validate = ajv.compile(closed(dataSchema(event.kind)) as object)
  const valid = validate(event.data)
  expect(valid ? [] : validate.errors, `${event.kind} data against the webhooks document`).toEqual([])
}
