import { Context, type DateTime, type Effect, Schema } from "effect"
import type { ApiKeyId } from "../Ids.js"

/** The state of a key's current one-minute window after counting one request. */
export const RateLimitVerdict = Schema.Struct({
  limit: Schema.Int,
  remaining: Schema.Int,
  resetAt: Schema.DateTimeUtcFromSelf,
  allowed: Schema.Boolean
})
export interface RateLimitVerdict extends Schema.Schema.Type<typeof RateLimitVerdict> {}

/** Fixed one-minute windows per key, shared by every process that serves the API. */
export class RateLimitStore extends Context.Tag("@herald/core/RateLimitStore")<RateLimitStore, {
  readonly hit: (keyId: ApiKeyId, limitPerMinute: number, now: DateTime.Utc) => Effect.Effect<RateLimitVerdict>
}>() {}
