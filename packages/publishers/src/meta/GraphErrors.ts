/**
 * Meta's error envelope (`{ error: { message, type, code, error_subcode, is_transient,
 * error_user_title, error_user_msg, fbtrace_id } }`, developers.facebook.com/docs/graph-api/guides/error-handling),
 * shared by graph.facebook.com, graph.instagram.com and graph.threads.net, read onto Herald's
 * taxonomy. docs/networks/threads.md has the table.
 */
import type { DeliveryError, DeliveryErrorCategory } from "@herald/core"
import { Option, Schema } from "effect"
import { categoryOfStatus } from "../kit/index.js"

export const GraphErrorBody = Schema.Struct({
  message: Schema.optional(Schema.String),
  type: Schema.optional(Schema.String),
  code: Schema.optional(Schema.Number),
  error_subcode: Schema.optional(Schema.Number),
  is_transient: Schema.optional(Schema.Boolean),
  error_user_title: Schema.optional(Schema.String),
  error_user_msg: Schema.optional(Schema.String),
  fbtrace_id: Schema.optional(Schema.String)
})
export type GraphErrorBody = typeof GraphErrorBody.Type

const Envelope = Schema.Struct({ error: GraphErrorBody })
const readEnvelope = Schema.decodeUnknownOption(Envelope)

/** What the refused call was doing: a container with media (its download or processing), or anything else. */
export type GraphStage = "media" | "call"

/** Throttling codes: application (4), user (17), page (32), a method's own (613), business use case (80001-80014). */
const throttled = (code: number) => code === 4 || code === 17 || code === 32 || code === 613 || code >= 80001 && code <= 80014

/** Subcodes Meta gives when it could not fetch or read the media a container names. */
const mediaSubcodes = new Set([2207052, 2207026, 2207003, 2207004, 2207005, 2207006, 2207008])

const categoryOf = (status: number, error: GraphErrorBody, stage: GraphStage): DeliveryErrorCategory => {
  const code = error.code
  const subcode = error.error_subcode
  // An access token expired, revoked or invalidated (a password change, the app removed).
  if (code === 190 || code === 102) return "auth_expired"
  // "Unsupported get/delete request": the object does not exist (or is not this token's to see).
  if (code === 100 && subcode === 33) return "not_found"
  if (code !== undefined && throttled(code)) return "rate_limited"
  // Instagram's publishing limit (content_publishing_limit) reached at media_publish.
  if (code === 9 && subcode === 2207042) return "rate_limited"
  // A permission (scope) not granted, or a capability the app lacks.
  if (code === 10 || code === 3 || code !== undefined && code >= 200 && code <= 299) return "permission_missing"
  // Right after a container's creation Meta may not find it yet: wait and publish again.
  if (code === 24 && subcode === 4279009) return "transient"
  if (subcode !== undefined && mediaSubcodes.has(subcode)) return "media_rejected"
  // Code 1 with a subcode on a media container is Meta failing on the media, not a passing fault.
  if (code === 1 && subcode !== undefined && stage === "media") return "media_rejected"
  if (error.is_transient === true || code === 1 || code === 2) return "transient"
  if (status >= 500) return "transient"
  if (code === 100 || code === 24) return stage === "media" ? "media_rejected" : "content_rejected"
  return categoryOfStatus(status)
}

/** Meta's code for the refusal: `190`, or `1/2207052` with its subcode. */
export const graphCode = (error: GraphErrorBody, status: number) =>
  error.code === undefined ? `HTTP_${status}` : error.error_subcode === undefined ? String(error.code) : `${error.code}/${error.error_subcode}`

/**
 * A Graph refusal as a DeliveryError: the message the user is meant to read (error_user_msg)
 * when there is one, else Meta's own, with the fbtrace_id Meta support asks for. `network`
 * names the platform in the message.
 */
export const classifyGraph = (network: string, stage: GraphStage) =>
(reply: { readonly status: number; readonly body: unknown }): DeliveryError => {
  const error = Option.match(readEnvelope(reply.body), { onNone: (): GraphErrorBody => ({}), onSome: (envelope) => envelope.error })
  const said = error.error_user_msg ?? error.message ??
    (typeof reply.body === "string" && reply.body !== "" ? reply.body.slice(0, 200) : `${network} answered ${reply.status}`)
  const trace = error.fbtrace_id === undefined ? "" : `; fbtrace_id ${error.fbtrace_id}`
  return { category: categoryOf(reply.status, error, stage), code: graphCode(error, reply.status), message: `${said} (HTTP ${reply.status}${trace})` }
}
