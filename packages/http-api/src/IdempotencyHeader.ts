import type { HttpServerRequest } from "@effect/platform"
import { type CreatePostBody, IdempotencyKey } from "@herald/core"
import { Effect, Either, JSONSchema, ParseResult, Schema } from "effect"
import { invalidRequest, refusedFields } from "./HttpErrors.js"

/**
 * The `Idempotency-Key` request header (Stripe's convention) on POST /posts: the same key as the
 * body's `idempotency_key`, so a client whose retries add the header is not posting twice.
 */
export const idempotencyHeader = "Idempotency-Key"

/**
 * The body's key in printable ASCII only: node hands a header's bytes over as Latin-1, so a UTF-8
 * key in the header would arrive as other characters than the same key in a body and never match.
 */
const HeaderKey = IdempotencyKey.pipe(Schema.pattern(/^[\x20-\x7e]*$/, {
  message: () => "holds a character outside printable ASCII; send such a key as the body's idempotency_key"
}))

/**
 * The header's schema as the OpenAPI document declares it (OperationDocs.ts): its bounds and
 * pattern, without the title and description Effect derives from the last refinement.
 */
export const headerKeySchema: Readonly<Record<string, unknown>> = Object.fromEntries(
  Object.entries(JSONSchema.make(HeaderKey)).filter(([name]) => !["$schema", "title", "description"].includes(name))
)

const refused = (message: string) => refusedFields([{ field: idempotencyHeader, account: null, message }])

/** The header as sent; node joins repeated ones with ", " and trims the surrounding spaces. */
const headerOf = (request: HttpServerRequest.HttpServerRequest): string | undefined =>
  request.headers[idempotencyHeader.toLowerCase()]

const decodeKey = Schema.decodeUnknownEither(HeaderKey)

/**
 * The create body with the header's key as its `idempotency_key`: the fingerprint of a resend is
 * then the same whichever of the two carried the key. Both given and different: 400 naming both.
 */
export const withHeaderKey = (request: HttpServerRequest.HttpServerRequest, body: CreatePostBody) => {
  const sent = headerOf(request)
  if (sent === undefined) return Effect.succeed(body)
  const key = decodeKey(sent)
  if (Either.isLeft(key)) {
    const issues = ParseResult.ArrayFormatter.formatErrorSync(key.left)
    return Effect.fail(invalidRequest(issues.map((issue) => ({ ...issue, path: [idempotencyHeader] }))))
  }
  if (body.idempotency_key !== undefined && body.idempotency_key !== key.right) {
    return Effect.fail(refusedFields([
      { field: idempotencyHeader, account: null, message: "differs from the body's idempotency_key; send one key, or the same in both" },
      { field: "idempotency_key", account: null, message: `differs from the ${idempotencyHeader} header` }
    ]))
  }
  return Effect.succeed({ ...body, idempotency_key: key.right })
}

/**
 * POST /posts/bulk refuses the header rather than ignoring it: each row has its own
 * idempotency_key, and one key for the whole request could not say which row it stands for. A
 * client whose retries add the header learns on its first request that it protects nothing here.
 */
export const refuseHeaderKey = (request: HttpServerRequest.HttpServerRequest) =>
  headerOf(request) === undefined
    ? Effect.void
    : Effect.fail(refused("is not read on POST /posts/bulk: give each row its own idempotency_key (a column in CSV)"))
