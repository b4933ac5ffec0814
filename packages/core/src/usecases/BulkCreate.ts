import { Cause, Effect, JSONSchema, ParseResult, Schema } from "effect"
import { requireScope } from "../Authorization.js"
import { expectedObject } from "../Echo.js"
import { type DomainError, errorCode } from "../ErrorCode.js"
import { GuardrailViolation, UnknownOption, ValidationFailed, Violation } from "../Errors.js"
import { issueViolations } from "../RefusedFields.js"
import { type CreatePostBody, IdempotencyKey, PostStatus, ScheduledAtInput } from "../Post.js"
import type { Principal } from "../Principal.js"
import { refuseStoredText } from "../StoredText.js"
import { MediaIngest } from "../ports/MediaIngest.js"
import { createPost } from "./CreatePost.js"
import { traced } from "../Tracing.js"

/** One row of POST /posts/bulk (JSON form; CSV rows decode to the same shape). */
export const BulkRow = Schema.Struct({
  // Descriptions go on the fields, not their types: a type's description becomes its refusal message.
  caption: Schema.propertySignature(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10000))).annotations({
    description: "The text, 1 to 10000 characters."
  }),
  accounts: Schema.propertySignature(Schema.Array(Schema.String).pipe(Schema.minItems(1))).annotations({
    description: "Account refs (platform:username), ids, or a username that names one account only."
  }),
  scheduled_at: Schema.optional(ScheduledAtInput).annotations({ description: "ISO 8601; omit to post now." }),
  media_urls: Schema.optional(Schema.Array(Schema.String)).annotations({ description: "Public https URLs, fetched for this row." }),
  idempotency_key: Schema.optional(IdempotencyKey).annotations({
    description: "Your own id for this row: sending it again answers repeated instead of writing another post."
  })
})
export type BulkRow = typeof BulkRow.Type

/** BulkRow's JSON Schema, which documents each row of BulkBody (the row itself is decoded by bulkCreate). */
const { $schema: _, ...bulkRowJsonSchema } = JSONSchema.make(BulkRow)

/**
 * The body of POST /posts/bulk (its JSON form; MCP bulk_post's input). Only the envelope is
 * decoded here: each row is decoded on its own by bulkCreate, so that a malformed row fails alone
 * (validation_failed naming rows[i]) and only a body that is not { rows: [1 to 100 items] } is
 * refused whole. Documents and clients see each row as BulkRow.
 */
export const BulkBody = Schema.Struct({
  rows: Schema.Array(Schema.Unknown.annotations({ jsonSchema: bulkRowJsonSchema })).pipe(Schema.minItems(1), Schema.maxItems(100))
})

/** One result per row: code is created, repeated, an error code, or internal_error. */
export const BulkRowResult = Schema.Struct({
  row: Schema.Int.annotations({ description: "0-based index of the row in the request." }),
  code: Schema.String.annotations({ description: "created, repeated, an error code, or internal_error." }),
  repeated: Schema.Boolean,
  id: Schema.NullOr(Schema.UUID),
  status: Schema.NullOr(PostStatus),
  message: Schema.String,
  approval_url: Schema.optional(Schema.String),
  violations: Schema.optional(Schema.Array(Schema.Union(Violation, GuardrailViolation)))
}).annotations({ identifier: "BulkRowResult" })
export type BulkRowResult = typeof BulkRowResult.Type

export const BulkResult = Schema.Struct({
  created: Schema.Int.annotations({ description: "Rows that have a post (created or repeated)." }),
  failed: Schema.Int,
  results: Schema.Array(BulkRowResult)
}).annotations({ identifier: "BulkResult" })

const ingest = (principal: Principal, urls: ReadonlyArray<string>) =>
  MediaIngest.pipe(Effect.flatMap((media) =>
    Effect.forEach(urls, (url, index) =>
      media.fromUrl(principal.projectId, url).pipe(
        Effect.mapError((rejected) => [{ field: `media_urls[${index}]`, account: null, message: rejected.reason }] as ReadonlyArray<Violation>),
        Effect.either
      ))
  ))

/** A row that is not an object is named by what it should be, not by a dump of BulkRow's whole type. */
const RowAsSent = BulkRow.annotations({ message: expectedObject("an object with caption and accounts") })

/** A row as sent, decoded on its own: its refusals name rows[i]. */
const decodeRow = (row: unknown, index: number) =>
  Schema.decodeUnknown(RowAsSent)(row, { errors: "all", onExcessProperty: "error" }).pipe(
    Effect.catchTag("ParseError", (error) =>
      Effect.flatMap(ParseResult.ArrayFormatter.formatError(error), (issues) =>
        Effect.fail(
          new ValidationFailed({ violations: issueViolations(issues.map((issue) => ({ ...issue, path: ["rows", index, ...issue.path] }))) })
        )))
  )

/**
 * The single-post path names the fields of POST /posts; a row's refusal names the row's own
 * (rows[i].accounts[j] for social_accounts[j], rows[i].media_urls[j] for media_ids[j]: media_ids
 * holds the row's URLs in order, as a row whose URL failed is refused before).
 */
const rowField = (index: number, field: string): string =>
  `rows[${index}].${field.replace(/^social_accounts(?=\[|$)/, "accounts").replace(/^media_ids(?=\[|$)/, "media_urls")}`

const inRow = (index: number) => <E extends DomainError>(error: E): DomainError =>
  error._tag === "ValidationFailed"
    ? new ValidationFailed({ violations: error.violations.map((v) => ({ ...v, field: rowField(index, v.field) })) })
    : error._tag === "UnknownOption"
    ? new UnknownOption({ violations: error.violations.map((v) => ({ ...v, field: rowField(index, v.field) })) })
    : error

const rowBody = (principal: Principal, sent: unknown, index: number) =>
  Effect.gen(function*() {
    // Before any media is fetched: a row with text that cannot be stored fails on its own.
    yield* refuseStoredText(sent, ["rows", index])
    const row = yield* decodeRow(sent, index)
    const fetched = yield* ingest(principal, row.media_urls ?? [])
    const violations = fetched.flatMap((result) => result._tag === "Left" ? result.left : [])
    if (violations.length > 0) return yield* new ValidationFailed({ violations: violations.map((v) => ({ ...v, field: rowField(index, v.field) })) })
    const body: CreatePostBody = {
      caption: row.caption,
      social_accounts: row.accounts,
      // Only a row with media names media_ids: the idempotency fingerprint of a row without any is
      // then that of the same POST /posts body, so the two may share an idempotency_key.
      ...(row.media_urls === undefined ? {} : { media_ids: fetched.flatMap((result) => result._tag === "Right" ? [result.right.id] : []) }),
      ...(row.scheduled_at === undefined ? {} : { scheduled_at: row.scheduled_at }),
      ...(row.idempotency_key === undefined ? {} : { idempotency_key: row.idempotency_key })
    }
    return body
  })

const failed = (row: number, error: DomainError): BulkRowResult => ({
  row,
  code: errorCode(error),
  repeated: false,
  id: null,
  status: null,
  message: error.message,
  ...(error._tag === "ValidationFailed" || error._tag === "UnknownOption" || error._tag === "GuardrailBlocked"
    ? { violations: error.violations }
    : {})
})

/**
 * POST /posts/bulk: each row runs the whole single-post path on its own (guardrails, caps,
 * approval, idempotency) and gets its own result; one row's failure never touches another. Each
 * row's text is judged here (the body guard leaves it to this), its fields named rows[i].
 */
export const bulkCreate = traced("bulkCreate")(function*(principal: Principal, rows: ReadonlyArray<unknown>) {
  yield* requireScope(principal, "posts:write")
  const results = yield* Effect.forEach(rows, (row, index) =>
    rowBody(principal, row, index).pipe(
      Effect.flatMap((body) => Effect.mapError(createPost(principal, body), inRow(index))),
      Effect.map((created): BulkRowResult => ({
        row: index,
        code: created.repeated ? "repeated" : "created",
        repeated: created.repeated,
        id: created.record.post.id,
        status: created.record.post.status,
        message: created.message,
        ...(created.record.post.status === "pending_approval" && created.approvalUrl !== null
          ? { approval_url: created.approvalUrl }
          : {})
      })),
      Effect.catchAll((error) => Effect.succeed(failed(index, error))),
      Effect.catchAllCause((cause) =>
        Effect.logError("bulk row crashed", cause).pipe(Effect.as<BulkRowResult>({
          row: index,
          code: "internal_error",
          repeated: false,
          id: null,
          status: null,
          message: `row ${index} failed inside Herald and nothing was created for it (${Cause.isDie(cause) ? "defect" : "interrupted"})`
        })))
    ))
  const created = results.filter((result) => result.id !== null).length
  return { created, failed: results.length - created, results } satisfies typeof BulkResult.Type
})
