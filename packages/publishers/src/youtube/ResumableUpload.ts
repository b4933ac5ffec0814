/**
 * YouTube's resumable upload protocol (developers.google.com/youtube/v3/guides/using_resumable_upload_protocol):
 * a POST with the video's metadata opens an upload session (its URI in Location), the bytes go
 * to that URI in PUTs of multiples of 256 KiB with `Content-Range: bytes a-b/N` (308 Resume
 * Incomplete and a Range header until the last, which answers the video resource), and a PUT of
 * no bytes with `Content-Range: bytes *\/N` asks the session how far it got: 308 (resume after
 * its Range), 200/201 (the video exists: its resource), 404/410 (the session is gone and no video
 * was made).
 */
import { HttpClientRequest } from "@effect/platform"
import { OutboundTimeout } from "@herald/outbound"
import { Data, Effect, type ParseResult, Schema } from "effect"
import { type PlatformCallError, type PlatformClient, PlatformRefusal } from "../kit/index.js"
import { decodeJson, send } from "./GoogleApi.js"

/** The unit of a chunk: YouTube takes chunks in multiples of 256 KiB (the last excepted). */
export const chunkUnit = 256 * 1024

/** The video resource as the upload's last answer and videos.list give it. */
export const Video = Schema.Struct({
  id: Schema.String,
  status: Schema.optional(Schema.Struct({
    uploadStatus: Schema.optional(Schema.String),
    failureReason: Schema.optional(Schema.String),
    rejectionReason: Schema.optional(Schema.String),
    privacyStatus: Schema.optional(Schema.String)
  }))
})
export type Video = typeof Video.Type

/** What a session says of itself: done (the video), or the offset to go on from. */
export type SessionState = Data.TaggedEnum<{
  Done: { readonly video: Video }
  Resume: { readonly offset: number }
}>
export const SessionState = Data.taggedEnum<SessionState>()

/** The session is gone (404/410, expired after a week): no video was made, a new session starts over. */
export class SessionGone extends Data.TaggedError("SessionGone")<{ readonly detail: string }> {}

/** An upload session URI on the API's origin. */
const sessionOn = (origin: string) =>
  Schema.String.pipe(Schema.filter((uri) => URL.canParse(uri) && new URL(uri).origin === origin, {
    message: () => `the upload session YouTube named is not on ${origin}`
  }))

/** A reply that never came: the session may have taken the bytes, so only a later probe can tell. */
const timedOut = (error: PlatformCallError) =>
  error._tag === "RequestError" && error.reason === "Transport" && error.cause instanceof OutboundTimeout

/** A chunk the network dropped or the server failed (5xx): the session stays resumable (probe, then go on). */
const resumable = (error: PlatformCallError) =>
  error._tag === "PlatformRefusal" ? error.error.category === "transient" : error._tag === "RequestError" && !timedOut(error)

/** The offset after a 308's `Range: bytes=0-K` (none: nothing was kept). */
const nextOffset = (range: string | undefined) => {
  const end = range === undefined ? undefined : /bytes=\d+-(\d+)/.exec(range)?.[1]
  return end === undefined ? 0 : Number(end) + 1
}

/** How many dropped chunks one attempt resumes after before handing the delivery back (session kept). */
const maxResumes = 5

export const makeResumableUpload = (client: PlatformClient, apiBaseUrl: string, chunkBytes: number) => {
  const put = (session: string, token: string, range: string, body: Uint8Array) =>
    send(
      client.upload,
      HttpClientRequest.put(session).pipe(
        HttpClientRequest.bearerToken(token),
        HttpClientRequest.setHeader("content-range", range),
        HttpClientRequest.bodyUint8Array(body, "application/octet-stream")
      ),
      "video",
      [308, 404, 410]
    )

  const stateOf = (
    answer: { readonly status: number; readonly headers: Readonly<Record<string, string | undefined>>; readonly text: string }
  ): Effect.Effect<SessionState, SessionGone | ParseResult.ParseError> =>
    answer.status === 404 || answer.status === 410
      ? Effect.fail(new SessionGone({ detail: `YouTube no longer holds the upload session (HTTP ${answer.status})` }))
      : answer.status === 308
      ? Effect.succeed(SessionState.Resume({ offset: nextOffset(answer.headers["range"]) }))
      : Effect.map(decodeJson(Video, answer.text), (video) => SessionState.Done({ video }))

  /** Opens a session for `total` bytes with the video's metadata; answers its URI. */
  const start = (token: string, parts: string, metadata: unknown, total: number, mime: string) =>
    Effect.gen(function*() {
      const answer = yield* send(
        client.publish,
        HttpClientRequest.post(`/upload/youtube/v3/videos?uploadType=resumable&part=${parts}`).pipe(
          HttpClientRequest.bearerToken(token),
          HttpClientRequest.setHeaders({ "x-upload-content-length": String(total), "x-upload-content-type": mime }),
          HttpClientRequest.bodyUnsafeJson(metadata)
        ),
        "video"
      )
      // The session carries the Bearer token: it must be on the API's own origin.
      return yield* Schema.decodeUnknown(sessionOn(new URL(apiBaseUrl).origin))(answer.headers["location"])
    })

  /** Asks the session how far it got. */
  const probe = (token: string, session: string, total: number) =>
    Effect.flatMap(put(session, token, `bytes */${total}`, new Uint8Array()), stateOf)

  /**
   * Sends the bytes from `offset` on, chunk by chunk; after a dropped chunk or a 5xx the session
   * is probed and the upload goes on from what it kept. A chunk whose answer never came is left
   * to the dispatcher's reconcile (its probe), never sent blind again.
   */
  const upload = (token: string, session: string, bytes: Uint8Array, from: number) =>
    Effect.gen(function*() {
      const total = bytes.byteLength
      let offset = from
      let resumes = 0
      for (;;) {
        const end = Math.min(offset + chunkBytes, total) - 1
        const sent = yield* Effect.either(Effect.flatMap(put(session, token, `bytes ${offset}-${end}/${total}`, bytes.subarray(offset, end + 1)), stateOf))
        let state: SessionState
        if (sent._tag === "Right") {
          state = sent.right
        } else if (sent.left._tag !== "SessionGone" && resumable(sent.left)) {
          resumes++
          state = yield* probe(token, session, total)
          if (state._tag === "Resume" && resumes > maxResumes) {
            return yield* refusedAs(
              "transient",
              "upload_interrupted",
              `YouTube's upload session kept ${state.offset} of ${total} bytes after ${maxResumes} dropped chunks; the next attempt goes on from there`
            )
          }
        } else {
          return yield* Effect.fail(sent.left)
        }
        if (state._tag === "Done") return state.video
        offset = state.offset
      }
    })

  return { start, probe, upload }
}

/** A chunk size from the settings: a positive multiple of 256 KiB. */
export const validChunkBytes = (bytes: number) => Number.isInteger(bytes) && bytes > 0 && bytes % chunkUnit === 0

export const refusedAs = (category: "media_rejected" | "content_rejected" | "transient", code: string, message: string, retryAfterMs: number | null = null) =>
  new PlatformRefusal({ error: { category, code, message }, retryAfterMs })
