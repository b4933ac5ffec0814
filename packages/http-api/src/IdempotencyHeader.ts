import type { HttpServerRequest } from "@effect/platform"
import type { CreatePostBody } from "@herald/core"
import { Effect } from "effect"
import { refusedFields } from "./HttpErrors.js"

/**
 * The `Idempotency-Key` request header (Stripe's convention) on POST /posts: the same key as the
 * body's `idempotency_key`, so a client whose retries add the header is not posting twice.
 */
export const idempotencyHeader = "Idempotency-Key"

/** The body field's bounds (core's CreatePostBody). */
const maxKeyLength = 255

/**
 * Printable ASCII only: node hands a header's bytes over as Latin-1, so a UTF-8 key in the header
 * would arrive as other characters than the same key in a body and never match it.
 */
const printableAscii = /^[\x20-\x7e]*$/

const refused = (message: string) => refusedFields([{ field: idempotencyHeader, account: null, message }])

/** The header as sent; node joins repeated ones with ", " and trims the surrounding spaces. */
const headerOf = (request: HttpServerRequest.HttpServerRequest): string | undefined =>
  request.headers[idempotencyHeader.toLowerCase()]

/**
 * The create body with the header's key as its `idempotency_key`: the fingerprint of a resend is
 * then the same whichever of the two carried the key. Both given and different: 400 naming both.
 */
export const withHeaderKey = (request: HttpServerRequest.HttpServerRequest, body: CreatePostBody) => {
  const key = headerOf(request)
  if (key === undefined) return Effect.succeed(body)
  if (key.length === 0) return Effect.fail(refused("is empty; send 1 to 255 characters, or leave the header out"))
  if (key.length > maxKeyLength) return Effect.fail(refused(`is ${key.length} characters long; at most ${maxKeyLength}`))
  if (!printableAscii.test(key)) {
    return Effect.fail(refused("holds a character outside printable ASCII; send such a key as the body's idempotency_key"))
  }
  if (body.idempotency_key !== undefined && body.idempotency_key !== key) {
    return Effect.fail(refusedFields([
      { field: idempotencyHeader, account: null, message: "differs from the body's idempotency_key; send one key, or the same in both" },
      { field: "idempotency_key", account: null, message: `differs from the ${idempotencyHeader} header` }
    ]))
  }
  return Effect.succeed({ ...body, idempotency_key: key })
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
