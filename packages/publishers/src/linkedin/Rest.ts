/**
 * LinkedIn's REST API as Herald calls it: every call under /rest carries the pinned
 * LinkedIn-Version and Rest.li protocol 2.0.0; a refusal carries LinkedIn's envelope
 * `{ status, serviceErrorCode, code, message, errorDetails }`, classified by LinkedinErrors.
 */
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import type { DeliveryError } from "@herald/core"
import { Clock, Effect, Schema } from "effect"
import { type PlatformCallError, PlatformRefusal, refusal } from "../kit/index.js"
import { classify, type Stage } from "./LinkedinErrors.js"

/**
 * The one place the API version is pinned. LinkedIn serves each monthly version for about a year
 * and then answers 426 NONEXISTENT_VERSION; bump it (and re-read the migration notes) yearly.
 */
export const linkedinVersion = "202608"
export const restliProtocol = "2.0.0"

const hourMs = 60 * 60 * 1000

/**
 * LinkedIn's limits are daily quotas that reset at 00:00 UTC, and its 429 carries no Retry-After
 * as a rule, nor says which quota ran out: Herald waits an hour (or until midnight UTC when that
 * is sooner) and asks again, unless LinkedIn did send a Retry-After.
 */
const withDefaultWait = (refused: PlatformRefusal): Effect.Effect<PlatformRefusal> =>
  refused.error.category !== "rate_limited" || refused.retryAfterMs !== null
    ? Effect.succeed(refused)
    : Effect.map(Clock.currentTimeMillis, (now) => {
      const midnight = Math.ceil((now + 1) / (24 * hourMs)) * 24 * hourMs
      return new PlatformRefusal({ error: refused.error, retryAfterMs: Math.min(hourMs, midnight - now) })
    })

/** A successful answer: its status, headers and body text. */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly text: string
}

/** Sends the request; a status of 300 or more is a PlatformRefusal classified for `stage`. */
export const send = (client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, stage: Stage): Effect.Effect<Answer, PlatformCallError> =>
  Effect.gen(function*() {
    const response = yield* client.execute(request)
    if (response.status >= 300) return yield* Effect.flip(Effect.flatMap(refusal(response, classify(stage)), withDefaultWait))
    const text = yield* response.text
    return { status: response.status, headers: response.headers, text }
  }).pipe(Effect.scoped)

/** Sends the request and reads its JSON body through `reply` (another shape is a ParseError). */
export const sendJson = <A, I>(client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, stage: Stage, reply: Schema.Schema<A, I>) =>
  Effect.flatMap(send(client, request, stage), (answer) => Schema.decodeUnknown(Schema.parseJson(reply))(answer.text))

/** A call to the versioned REST API (/rest/...) with the member's token. */
export const rest = (method: "GET" | "POST" | "DELETE", path: string, token: string) =>
  HttpClientRequest.make(method)(path).pipe(
    HttpClientRequest.bearerToken(token),
    HttpClientRequest.setHeaders({ "LinkedIn-Version": linkedinVersion, "X-Restli-Protocol-Version": restliProtocol })
  )

/** A refusal Herald makes up from an answer LinkedIn gave in a success's shape (a failed processing). */
export const refusedWith = (error: DeliveryError) => new PlatformRefusal({ error, retryAfterMs: null })
