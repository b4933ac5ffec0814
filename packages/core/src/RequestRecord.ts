import { Effect, FiberRef } from "effect"

/**
 * What a request's access-log line learns from inside it: the id of the API key that signed it
 * (never the key). The HTTP layer starts each request with a fresh record (`withRequestRecord`),
 * and whoever establishes the caller fills it in; a FiberRef holding a mutable record costs no
 * copy of the request's context, unlike a service would.
 */
export interface RequestRecord {
  keyId: string | null
}

const currentRequestRecord = FiberRef.unsafeMake<RequestRecord | null>(null)

/** Runs `effect` (one request) with `record` as the record its callers fill in. */
export const withRequestRecord = (record: RequestRecord) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.locally(effect, currentRequestRecord, record)

/** Notes the caller's key id on the current request's record, if the request keeps one. */
export const recordCaller = (keyId: string): Effect.Effect<void> =>
  Effect.map(FiberRef.get(currentRequestRecord), (record) => {
    if (record !== null) record.keyId = keyId
  })
