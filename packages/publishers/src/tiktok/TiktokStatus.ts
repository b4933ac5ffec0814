/**
 * A publish after its init: what Herald records of it (PublishCheckpoints, by delivery) before it
 * uploads or waits, and TikTok's status of it (POST /v2/post/publish/status/fetch/) read until
 * PUBLISH_COMPLETE or FAILED. An attempt cut short (a crash, the dispatcher's deadline, a lost
 * answer) resumes on the recorded publish_id and never inits a second post.
 */
import type { HttpClient } from "@effect/platform"
import { PublishCheckpoints } from "@herald/core"
import { Clock, Duration, Effect, Option, Schema } from "effect"
import { type PlatformCallError, PlatformRefusal } from "../kit/index.js"
import { api, call } from "./TiktokApi.js"
import { network } from "./TiktokErrors.js"

/**
 * What is recorded of a delivery's publish. `init`: the init was sent and its answer is not
 * known yet (a lost answer means TikTok may hold the post). `publishing`: TikTok's publish_id,
 * and for FILE_UPLOAD the upload URL (valid an hour) with whether every chunk went up.
 */
export const Recorded = Schema.Union(
  Schema.TaggedStruct("init", { at: Schema.Number }),
  Schema.TaggedStruct("publishing", {
    at: Schema.Number,
    publishId: Schema.String,
    upload: Schema.NullOr(Schema.Struct({ url: Schema.String, uploaded: Schema.Boolean }))
  })
)
export type Recorded = typeof Recorded.Type
const RecordedJson = Schema.parseJson(Recorded)

export const recorded = (deliveryId: string): Effect.Effect<Option.Option<Recorded>, never, PublishCheckpoints> =>
  Effect.map(
    Effect.flatMap(PublishCheckpoints, (checkpoints) => checkpoints.get(deliveryId)),
    Option.flatMap(Schema.decodeOption(RecordedJson))
  )

export const record = (deliveryId: string, value: Recorded) =>
  Effect.flatMap(PublishCheckpoints, (checkpoints) => checkpoints.put(deliveryId, Schema.encodeSync(RecordedJson)(value)))

export const forget = (deliveryId: string) => Effect.flatMap(PublishCheckpoints, (checkpoints) => checkpoints.clear(deliveryId))

export const PublishState = Schema.Literal("PROCESSING_UPLOAD", "PROCESSING_DOWNLOAD", "SEND_TO_USER_INBOX", "PUBLISH_COMPLETE", "FAILED")

/** TikTok's post ids are int64, read as text so none loses digits (TiktokApi's quoteIds). */
export const Status = Schema.Struct({
  status: PublishState,
  fail_reason: Schema.optional(Schema.String),
  // The API's own spelling.
  publicaly_available_post_id: Schema.optional(Schema.Array(Schema.String)),
  uploaded_bytes: Schema.optional(Schema.Number),
  downloaded_bytes: Schema.optional(Schema.Number)
})
export type Status = typeof Status.Type

export const fetchStatus = (client: HttpClient.HttpClient, accessToken: string, publishId: string) =>
  call(client, api("POST", "/v2/post/publish/status/fetch/", accessToken, { publish_id: publishId }), Status)

/** The public post's id, once TikTok has one (public posts past moderation only). */
export const postIdOf = (status: Status): string | null => {
  return status.publicaly_available_post_id?.[0] ?? null
}

/**
 * How long one attempt waits on a publish before handing the delivery back to be tried again (the
 * publish_id kept): under the dispatcher's deadline for one publish call (30 seconds).
 */
export const attemptWait = Duration.seconds(20)

/** The pause between status reads: short at first, then every 5 seconds (TikTok allows 30 reads a minute). */
const pause = (read: number) => Duration.millis(Math.min(5000, 250 * 2 ** read))

const transient = (code: string, message: string, retryAfterMs: number | null = null) =>
  new PlatformRefusal({ error: { category: "transient", code, message }, retryAfterMs })

/**
 * Reads the publish's status until TikTok is done with it (PUBLISH_COMPLETE or FAILED); still
 * processing when this attempt's wait is over is transient with a short Retry-After, and the next
 * attempt waits on the same publish_id.
 */
export const awaitPublished = <R>(
  status: (publishId: string) => Effect.Effect<Status, PlatformCallError, R>,
  publishId: string
): Effect.Effect<Status, PlatformCallError, R> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    for (let read = 0;; read++) {
      const seen = yield* status(publishId)
      if (seen.status === "PUBLISH_COMPLETE" || seen.status === "SEND_TO_USER_INBOX" || seen.status === "FAILED") return seen
      if ((yield* Clock.currentTimeMillis) - started >= Duration.toMillis(attemptWait)) {
        return yield* transient(
          "tiktok_processing",
          `${network} is still processing ${publishId} (${seen.status}); the next attempt waits on the same publish`,
          Duration.toMillis(attemptWait)
        )
      }
      yield* Effect.sleep(pause(read))
    }
  })
