/**
 * FILE_UPLOAD (Content Posting API, "Media Transfer Guide"): the video's bytes PUT to the
 * upload_url TikTok handed out at init, chunk by chunk in order, each with its Content-Range.
 * TikTok answers 206 while chunks remain and 201 once the file is whole; a 5xx is retried on
 * the same chunk; 403 (the URL's hour is over) and 404 (no such upload) end the upload.
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { Duration, Effect, Schedule } from "effect"
import { type PlatformCallError, PlatformRefusal } from "../kit/index.js"
import { type ChunkPlan, chunkRange } from "./TiktokPosts.js"
import { network } from "./TiktokErrors.js"

const refused = (status: number): PlatformRefusal => {
  const [category, code, said] = status === 403
    ? ["transient", "upload_url_expired", "the upload URL has expired (it lasts an hour); a new publish is started on the next attempt"] as const
    : status === 404
    ? ["transient", "upload_not_found", "holds no upload at this URL; a new publish is started on the next attempt"] as const
    : status === 416
    ? ["transient", "upload_out_of_sync", "expected another byte range; the next attempt resumes where TikTok says it is"] as const
    : status >= 500
    ? ["transient", `http_${status}`, `failed on a chunk (HTTP ${status})`] as const
    : ["media_rejected", `http_${status}`, `refused a chunk of the video (HTTP ${status})`] as const
  return new PlatformRefusal({ error: { category, code, message: `${network} ${said}` }, retryAfterMs: null })
}

/** Whether a failed upload means the publish can never complete (its upload URL is gone). */
export const uploadGone = (failure: PlatformCallError) =>
  failure._tag === "PlatformRefusal" && (failure.error.code === "upload_url_expired" || failure.error.code === "upload_not_found")

const putChunk = (client: HttpClient.HttpClient, url: string, bytes: Uint8Array, plan: ChunkPlan, index: number, mime: string) => {
  const { first, last } = chunkRange(plan, index)
  return Effect.gen(function*() {
    const response = yield* client.execute(
      HttpClientRequest.put(url).pipe(
        HttpClientRequest.setHeader("content-range", `bytes ${first}-${last}/${plan.video_size}`),
        HttpClientRequest.bodyUint8Array(bytes.subarray(first, last + 1), mime)
      )
    )
    if (response.status !== 201 && response.status !== 206) return yield* Effect.fail(refused(response.status))
  }).pipe(
    Effect.scoped,
    // A 5xx on a chunk: that chunk again, twice at most.
    Effect.retry({
      schedule: Schedule.exponential(Duration.millis(200)),
      times: 2,
      while: (failure) => failure._tag === "PlatformRefusal" && failure.error.code.startsWith("http_5")
    })
  )
}

/** Sends the chunks from `from` (0, or where TikTok's uploaded_bytes says a cut-short upload stopped). */
export const uploadChunks = (
  client: HttpClient.HttpClient,
  url: string,
  bytes: Uint8Array,
  plan: ChunkPlan,
  mime: string,
  from = 0
): Effect.Effect<void, PlatformCallError> =>
  Effect.forEach(
    Array.from({ length: plan.total_chunk_count - from }, (_, offset) => from + offset),
    (index) => putChunk(client, url, bytes, plan, index, mime),
    { discard: true }
  )
