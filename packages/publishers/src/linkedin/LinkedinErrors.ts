/**
 * LinkedIn's answers in Herald's error taxonomy (docs/networks/linkedin.md has the table).
 * LinkedIn's status decides, with its code where the status alone is ambiguous (a duplicate post,
 * an API version it no longer serves), and the stage of the call: a refused upload is the media's.
 */
import type { DeliveryError } from "@herald/core"
import { Option, Schema } from "effect"
import { categoryOfStatus } from "../kit/index.js"

/** What the refused call was doing: creating the post, uploading media, or reading. */
export type Stage = "post" | "media" | "read"

const Envelope = Schema.Struct({
  status: Schema.optional(Schema.Number),
  serviceErrorCode: Schema.optional(Schema.Number),
  code: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String),
  // The OAuth endpoints answer in OAuth's shape instead.
  error: Schema.optional(Schema.String),
  error_description: Schema.optional(Schema.String),
  errorDetails: Schema.optional(Schema.Struct({
    inputErrors: Schema.optional(Schema.Array(Schema.Struct({ code: Schema.optional(Schema.String) })))
  }))
})
type Envelope = typeof Envelope.Type

const readEnvelope = Schema.decodeUnknownOption(Envelope)

/** LinkedIn's own code for the refusal: an input error's, the envelope's, OAuth's, or the service code. */
const codeOf = (status: number, envelope: Envelope) =>
  envelope.errorDetails?.inputErrors?.find((input) => input.code !== undefined)?.code ?? envelope.code ?? envelope.error ??
    (envelope.serviceErrorCode === undefined ? `HTTP_${status}` : `SERVICE_ERROR_${envelope.serviceErrorCode}`)

const isDuplicate = (code: string, message: string) => code === "DUPLICATE_POST" || /content is a duplicate/i.test(message)

const categoryOf = (status: number, code: string, message: string, stage: Stage): DeliveryError["category"] => {
  // The API version Herald pins is no longer served: nothing an account owner can fix, nor a retry.
  if (status === 426) return "permission_missing"
  // A gateway that timed out on the create cannot say whether LinkedIn made the post.
  if (status === 504 && stage === "post") return "outcome_unknown"
  if (status === 401 || status === 403 || status === 429 || status >= 500) return categoryOfStatus(status)
  if (status === 404) return stage === "media" ? "media_rejected" : "not_found"
  if (isDuplicate(code, message)) return "content_rejected"
  if (stage === "media") return "media_rejected"
  return categoryOfStatus(status)
}

const hints: Partial<Record<number, string>> = {
  401: "LinkedIn refused the token even after a refresh; reconnect the account",
  403: "the connection lacks a LinkedIn permission (scope) or page role this call needs; reconnect with it granted",
  426: "LinkedIn no longer serves the API version this Herald build pins; Herald needs updating"
}

/** A refusal as a DeliveryError: LinkedIn's code, its message kept, advice where there is some. */
export const classify = (stage: Stage) => (reply: { readonly status: number; readonly body: unknown }): DeliveryError => {
  const envelope = Option.getOrElse(readEnvelope(reply.body), (): Envelope => ({}))
  const code = codeOf(reply.status, envelope)
  const message = envelope.message ?? envelope.error_description ??
    (typeof reply.body === "string" && reply.body !== "" ? reply.body.slice(0, 200) : `LinkedIn answered ${reply.status}`)
  const hint = hints[reply.status]
  return {
    category: categoryOf(reply.status, code, message, stage),
    code,
    message: hint === undefined ? `${message} (HTTP ${reply.status})` : `${message} (HTTP ${reply.status}; ${hint})`
  }
}
