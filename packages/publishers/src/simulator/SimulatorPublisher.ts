import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import {
  type DeliveryError,
  type FailureCategory,
  Media,
  OutcomeUnknown,
  type Published,
  type Publisher,
  PublishFailed,
  type PublishRequest,
  Publishers,
  SocialAccount
} from "@herald/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SimError, SimMetrics, SimPost, SimProbe } from "./SimulatorWire.js"

export interface SimulatorPublisherOptions {
  /** Where the simulator listens, e.g. http://127.0.0.1:4010 (HERALD_SIMULATOR_URL). */
  readonly baseUrl: string
}

const encodeAccount = Schema.encodeSync(SocialAccount)
const encodeMedia = Schema.encodeSync(Schema.Array(Media))

const fail = (category: FailureCategory, code: string, message: string, transient = false, retryAfterMs: number | null = null) =>
  new PublishFailed({ error: { category, code, message } satisfies DeliveryError, transient, retryAfterMs })

/** A connection that was refused never carried the request: safe to retry. Anything else may have. */
const neverSent = (error: unknown): boolean => {
  for (let cause = error; typeof cause === "object" && cause !== null; cause = (cause as { cause?: unknown }).cause) {
    const code = (cause as { code?: unknown }).code
    if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN") return true
  }
  return false
}

const transportFailure = (account: SocialAccount, error: HttpClientError) =>
  error._tag === "RequestError" && (error.reason !== "Transport" || neverSent(error.cause))
    ? fail("platform_error", "network_unreachable", `${account.platform} could not be reached: ${error.message}`, true)
    : new OutcomeUnknown({ detail: `${account.platform} gave no usable answer: ${error.message}` })

const retryAfterMs = (response: HttpClientResponse.HttpClientResponse): number | null => {
  const header = response.headers["retry-after"]
  if (header === undefined) return null
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(header)
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now())
}

/** The platform's refusal, in Herald's categories, with a message a person can act on. */
const refusal = (account: SocialAccount, response: HttpClientResponse.HttpClientResponse) =>
  response.json.pipe(
    Effect.flatMap(Schema.decodeUnknown(SimError)),
    Effect.map(({ error }) => error),
    Effect.orElseSucceed(() => ({ code: `http_${response.status}`, message: `HTTP ${response.status}` })),
    Effect.map(({ code, message }) => {
      const who = `${account.platform}:${account.username}`
      const status = response.status
      if (status === 429) {
        return fail("rate_limited", "rate_limited", `${who}: ${message}`, true, retryAfterMs(response))
      }
      if (status >= 500) return fail("platform_error", "platform_unavailable", `${who}: ${message} (HTTP ${status})`, true)
      if (status === 401) {
        return fail("auth_expired", code, `${who}: ${message}; reconnect the account, then retry the delivery`)
      }
      if (status === 400 && code === "invalid_media") return fail("media_invalid", code, `${who}: ${message}`)
      if (status === 400 || status === 422) return fail("content_rejected", code, `${who}: ${message}`)
      return fail("platform_error", code, `${who}: ${message} (HTTP ${status})`)
    })
  )

const published = (post: SimPost): Published => ({ platformPostId: post.id, url: post.url, note: null })

/**
 * The simulator route: an HTTP client to the simulated networks, built the way a real network's
 * publisher is (a base URL, HttpClient, platform answers mapped to PublishFailed/OutcomeUnknown).
 */
export const makeSimulatorPublisher = (options: SimulatorPublisherOptions) =>
  Effect.gen(function*() {
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(HttpClientRequest.prependUrl(options.baseUrl.replace(/\/$/, "")))
    )
    const posts = (platform: string) => `/v1/${platform}/posts`

    const publish = (request: PublishRequest) =>
      HttpClientRequest.post(posts(request.account.platform)).pipe(
        HttpClientRequest.bodyUnsafeJson({
          account: encodeAccount(request.account),
          text: request.text,
          media: encodeMedia(request.media),
          configuration: request.configuration ?? null,
          marker: request.marker
        }),
        client.execute,
        Effect.mapError((error) => transportFailure(request.account, error)),
        Effect.flatMap((response): Effect.Effect<Published, PublishFailed | OutcomeUnknown> =>
          response.status === 201
            ? response.json.pipe(
              Effect.flatMap(Schema.decodeUnknown(SimPost)),
              Effect.map(published),
              // Created, but the answer is unreadable: the post may well exist.
              Effect.mapError((error) => new OutcomeUnknown({ detail: `unreadable answer from ${request.account.platform}: ${error.message}` }))
            )
            : Effect.flatMap(refusal(request.account, response), Effect.fail)
        ),
        Effect.scoped,
        Effect.withSpan("SimulatorPublisher.publish", { attributes: { platform: request.account.platform } })
      )

    const reconcile = (request: PublishRequest) =>
      HttpClientRequest.get(posts(request.account.platform), {
        urlParams: { marker: request.marker, username: request.account.username }
      }).pipe(
        client.execute,
        Effect.mapError((error) => transportFailure(request.account, error)),
        Effect.flatMap((response): Effect.Effect<Option.Option<Published>, PublishFailed | OutcomeUnknown> =>
          response.status === 404
            ? Effect.succeedNone
            : response.status === 200
            ? response.json.pipe(
              Effect.flatMap(Schema.decodeUnknown(SimPost)),
              Effect.map((post) => Option.some(published(post))),
              Effect.mapError((error) => new OutcomeUnknown({ detail: `unreadable answer from ${request.account.platform}: ${error.message}` }))
            )
            : Effect.flatMap(refusal(request.account, response), Effect.fail)
        ),
        Effect.scoped,
        Effect.withSpan("SimulatorPublisher.reconcile")
      )

    const takedown = (account: SocialAccount, platformPostId: string) =>
      HttpClientRequest.del(`${posts(account.platform)}/${encodeURIComponent(platformPostId)}`).pipe(
        client.execute,
        Effect.mapError((error) => transportFailure(account, error)),
        Effect.flatMap((response) => response.status === 204 ? Effect.void : Effect.flatMap(refusal(account, response), Effect.fail)),
        Effect.scoped,
        Effect.withSpan("SimulatorPublisher.takedown")
      )

    /** Engagement so far (for the metrics sync). */
    const metrics = (account: SocialAccount, platformPostId: string) =>
      client.get(`${posts(account.platform)}/${encodeURIComponent(platformPostId)}/metrics`).pipe(
        Effect.mapError((error) => transportFailure(account, error)),
        Effect.flatMap((response) =>
          response.status === 200
            ? Effect.orDie(Effect.flatMap(response.json, Schema.decodeUnknown(SimMetrics)))
            : Effect.flatMap(refusal(account, response), Effect.fail)
        ),
        Effect.scoped,
        Effect.withSpan("SimulatorPublisher.metrics")
      )

    /** Whether the connection still works (for the health checker). */
    const probe = (account: SocialAccount) =>
      client.get(`/v1/${account.platform}/accounts/${encodeURIComponent(account.username)}`).pipe(
        Effect.mapError((error) => transportFailure(account, error)),
        Effect.flatMap((response) =>
          response.status === 200
            ? Effect.asVoid(Effect.orDie(Effect.flatMap(response.json, Schema.decodeUnknown(SimProbe))))
            : Effect.flatMap(refusal(account, response), Effect.fail)
        ),
        Effect.scoped,
        Effect.withSpan("SimulatorPublisher.probe")
      )

    /** The people-tag handles the network does not know (404 on its user lookup). */
    const unknownHandles = (account: SocialAccount, handles: ReadonlyArray<string>) =>
      Effect.filter(handles, (handle) =>
        client.get(`/v1/${account.platform}/users/${encodeURIComponent(handle)}`).pipe(
          Effect.mapError((error) => transportFailure(account, error)),
          Effect.flatMap((response) =>
            response.status === 200 || response.status === 404
              ? Effect.succeed(response.status === 404)
              : Effect.flatMap(refusal(account, response), Effect.fail)
          ),
          Effect.scoped
        ), { concurrency: 4 }).pipe(Effect.withSpan("SimulatorPublisher.unknownHandles"))

    return {
      capabilities: { publish: true, delete: true, reconcile: true, metrics: true, probe: true, peopleTagCheck: true },
      publish,
      reconcile,
      takedown,
      unknownHandles,
      metrics,
      probe
    } satisfies Publisher & Record<string, unknown>
  })

export type SimulatorPublisher = Effect.Effect.Success<ReturnType<typeof makeSimulatorPublisher>>

/** Routes without a publisher in this build fail at once, saying so, rather than pretending. */
const noRoute = (account: SocialAccount): PublishFailed =>
  fail(
    "platform_error",
    "route_unavailable",
    `${account.platform}:${account.username} is connected through the ${account.route} route, which this build cannot publish to yet; connect it through the simulator route`
  )

const unavailable: Publisher = {
  capabilities: { publish: true, delete: false, reconcile: false, metrics: false, probe: false, peopleTagCheck: false },
  publish: (request) => Effect.fail(noRoute(request.account)),
  reconcile: (request) => Effect.fail(noRoute(request.account)),
  takedown: (account) => Effect.fail(noRoute(account))
}

/**
 * Publishers for the simulator route on all nine platforms. Needs an HttpClient (the app provides
 * one from @effect/platform-node; tests may use FetchHttpClient).
 */
export const SimulatorPublishers = {
  layer: (options: SimulatorPublisherOptions): Layer.Layer<Publishers, never, HttpClient.HttpClient> =>
    Layer.effect(
      Publishers,
      Effect.map(makeSimulatorPublisher(options), (simulator) =>
        Publishers.of({ forAccount: (account) => account.route === "simulator" ? simulator : unavailable }))
    )
}
