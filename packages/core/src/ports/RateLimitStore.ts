import { Context, type DateTime, type Effect } from "effect"
import type { ApiKeyId } from "../Ids.js"

/** The state of a key's current one-minute window after counting one request. */
export interface RateLimitVerdict {
  readonly limit: number
  readonly remaining: number
  readonly resetAt: DateTime.Utc
  readonly allowed: boolean
}

/** Fixed one-minute windows per key, shared by every process that serves the API. */
export class RateLimitStore extends Context.Tag("@herald/core/RateLimitStore")<RateLimitStore, {
  readonly hit: (keyId: ApiKeyId, limitPerMinute: number, now: DateTime.Utc) => Effect.Effect<RateLimitVerdict>
}>() {}
