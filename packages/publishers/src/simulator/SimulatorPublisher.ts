import {
  AlreadyGone,
  type DeliveryError,
  type FailureCategory,
  Media,
  OutcomeUnknown,
  type Published,
  type Publisher,
  PublishFailed,
  type PublishRequest,
  Publishers,
  type SocialAccount
} from "@herald/core"
import { Effect, Either, Layer, Option, Schema } from "effect"
import { type JsonAnswer, makeJsonHttp, type TransportError } from "./JsonHttp.js"
import { SimError, SimMetrics, SimPost, SimProbe } from "./SimulatorWire.js"

export interface SimulatorPublisherOptions {
  /** Where the simulator listens, e.g. http://127.0.0.1:4010 (HERALD_SIMULATOR_URL). */
  readonly baseUrl: string
}

const encodeMedia = Schema.encodeSync(Schema.Array(Media))

const fail = (category: FailureCategory, code: string, message: string, transient = false, retryAfterMs: number | null = null) =>
  new PublishFailed({ error: { category, code, message } satisfies DeliveryError, transient, retryAfterMs })

const transportFailure = (account: SocialAccount, error: TransportError) =>
  error.sent
    ? new OutcomeUnknown({ detail: `${account.platform} gave no usable answer: ${error.message}` })
    : fail("platform_error", "network_unreachable", `${account.platform} could not be reached: ${error.message}`, true)

const retryAfterMs = (header: string | undefined): number | null => {
  if (header === undefined) return null
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(header)
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now())
}

/** A JSON body read through a schema; an unreadable one is Left with why. */
const readJson = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(Schema.parseJson(schema))
  return (answer: JsonAnswer) => Either.mapLeft(decode(answer.body), (error) => error.message)
}

const readError = readJson(SimError)
// Only what Herald keeps of a created post is read from it.
const readPost = readJson(SimPost.pick("id", "url"))
const readMetrics = readJson(SimMetrics)
const readProbe = readJson(SimProbe)

/** The platform's refusal, in Herald's categories, with a message a person can act on. */
const refusal = (account: SocialAccount, answer: JsonAnswer): PublishFailed => {
  const { code, message } = Either.getOrElse(
    Either.map(readError(answer), ({ error }) => error),
    () => ({ code: `http_${answer.status}`, message: `HTTP ${answer.status}` })
  )
  const who = `${account.platform}:${account.username}`
  const status = answer.status
  if (status === 429) return fail("rate_limited", "rate_limited", `${who}: ${message}`, true, retryAfterMs(answer.retryAfter))
  if (status >= 500) return fail("platform_error", "platform_unavailable", `${who}: ${message} (HTTP ${status})`, true)
  if (status === 401) return fail("auth_expired", code, `${who}: ${message}; reconnect the account, then retry the delivery`)
  if (status === 400 && code === "invalid_media") return fail("media_invalid", code, `${who}: ${message}`)
  if (status === 400 || status === 422) return fail("content_rejected", code, `${who}: ${message}`)
  return fail("platform_error", code, `${who}: ${message} (HTTP ${status})`)
}

/** A created post from its answer; unreadable, it may well exist all the same. */
const published = (account: SocialAccount, answer: JsonAnswer): Either.Either<Published, OutcomeUnknown> =>
  Either.match(readPost(answer), {
    onLeft: (error) => Either.left(new OutcomeUnknown({ detail: `unreadable answer from ${account.platform}: ${error}` })),
    onRight: (post) => Either.right({ platformPostId: post.id, url: post.url, note: null })
  })

/**
 * The simulator route: an HTTP client to the simulated networks, built the way a real network's
 * publisher is (a base URL, JSON over HTTP, platform answers mapped to PublishFailed/OutcomeUnknown).
 * Its connections close with the scope.
 */
export const makeSimulatorPublisher = (options: SimulatorPublisherOptions) =>
  Effect.gen(function*() {
    const http = yield* makeJsonHttp(options.baseUrl)
    const posts = (platform: string) => `/v1/${platform}/posts`
    const call = (account: SocialAccount, method: "GET" | "POST" | "DELETE", path: string, body?: string) =>
      Effect.mapError(http.send(method, path, body), (error) => transportFailure(account, error))

    const publish = (request: PublishRequest): Effect.Effect<Published, PublishFailed | OutcomeUnknown> =>
      Effect.flatMap(
        call(
          request.account,
          "POST",
          posts(request.account.platform),
          // Herald built the request itself: encoded as it is. The account's fields are all strings.
          JSON.stringify({
            account: request.account,
            text: request.text,
            media: request.media.length === 0 ? [] : encodeMedia(request.media),
            configuration: request.configuration ?? null,
            marker: request.marker
          })
        ),
        (answer): Effect.Effect<Published, PublishFailed | OutcomeUnknown> =>
          answer.status === 201 ? published(request.account, answer) : Effect.fail(refusal(request.account, answer))
      )

    const reconcile = (request: PublishRequest) =>
      Effect.flatMap(
        call(
          request.account,
          "GET",
          `${posts(request.account.platform)}?${new URLSearchParams({ marker: request.marker, username: request.account.username })}`
        ),
        (answer): Effect.Effect<Option.Option<Published>, PublishFailed | OutcomeUnknown> =>
          answer.status === 404
            ? Effect.succeedNone
            : answer.status === 200
            ? Effect.map(published(request.account, answer), Option.some)
            : Effect.fail(refusal(request.account, answer))
      )

    const takedown = (account: SocialAccount, platformPostId: string) =>
      Effect.flatMap(
        call(account, "DELETE", `${posts(account.platform)}/${encodeURIComponent(platformPostId)}`),
        (answer): Effect.Effect<void, PublishFailed | AlreadyGone> =>
          answer.status === 204
            ? Effect.void
            : answer.status === 404
            ? Effect.fail(new AlreadyGone({ detail: `${account.platform} holds no live post ${platformPostId}` }))
            : Effect.fail(refusal(account, answer))
      )

    /** Engagement so far (for the metrics sync). */
    const metrics = (account: SocialAccount, platformPostId: string) =>
      Effect.flatMap(
        call(account, "GET", `${posts(account.platform)}/${encodeURIComponent(platformPostId)}/metrics`),
        (answer) => answer.status === 200 ? Effect.orDie(readMetrics(answer)) : Effect.fail(refusal(account, answer))
      )

    /** Whether the connection still works (for the health checker). */
    const probe = (account: SocialAccount) =>
      Effect.flatMap(
        call(account, "GET", `/v1/${account.platform}/accounts/${encodeURIComponent(account.username)}`),
        (answer) => answer.status === 200 ? Effect.asVoid(Effect.orDie(readProbe(answer))) : Effect.fail(refusal(account, answer))
      )

    /** The people-tag handles the network does not know (404 on its user lookup). */
    const unknownHandles = (account: SocialAccount, handles: ReadonlyArray<string>) =>
      Effect.filter(handles, (handle) =>
        Effect.flatMap(
          call(account, "GET", `/v1/${account.platform}/users/${encodeURIComponent(handle)}`),
          (answer) =>
            answer.status === 200 || answer.status === 404
              ? Effect.succeed(answer.status === 404)
              : Effect.fail(refusal(account, answer))
        ), { concurrency: 4 })

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

/** Publishers for the simulator route on all nine platforms; their connections close with the layer. */
export const SimulatorPublishers = {
  layer: (options: SimulatorPublisherOptions): Layer.Layer<Publishers> =>
    Layer.scoped(
      Publishers,
      Effect.map(makeSimulatorPublisher(options), (simulator) =>
        Publishers.of({ forAccount: (account) => account.route === "simulator" ? simulator : unavailable }))
    )
}
