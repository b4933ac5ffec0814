import {
  AlreadyGone,
  ConnectionHealth,
  type ConnectionProbe,
  type DeliveryError,
  type DeliveryErrorCategory,
  Media,
  MetricsReading,
  type MetricsSource,
  OutcomeUnknown,
  PlatformCallFailed,
  platforms,
  type PostMetrics,
  type Published,
  type Publisher,
  PublishFailed,
  type PublishRequest,
  type RouteAdapters,
  type SocialAccount
} from "@herald/core"
import { Effect, Either, Layer, Option, Schema } from "effect"
import { registry } from "../Registry.js"
import { type JsonAnswer, makeJsonHttp, type TransportError } from "./JsonHttp.js"
import { metricsUnsupported, SimError, SimMetrics, SimPost, SimProbe, simulatedPermissions } from "./SimulatorWire.js"

export interface SimulatorPublisherOptions {
  /** Where the simulator listens, e.g. http://127.0.0.1:4010 (HERALD_SIMULATOR_URL). */
  readonly baseUrl: string
}

const encodeMedia = Schema.encodeSync(Schema.Array(Media))

/** A platform's refusal in Herald's terms: its category, and whether and when to try again. */
interface Refusal {
  readonly error: DeliveryError
  readonly transient: boolean
  readonly retryAfterMs: number | null
}

const refused = (category: DeliveryErrorCategory, code: string, message: string, transient = false, retryAfterMs: number | null = null): Refusal => ({
  error: { category, code, message },
  transient,
  retryAfterMs
})

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

/**
 * An error answer in Herald's categories, with a message a person can act on; undefined for a
 * status that is no refusal (an answer other than the one the call expects).
 */
const refusalOf = (account: SocialAccount, answer: JsonAnswer): Refusal | undefined => {
  const status = answer.status
  if (status < 400) return undefined
  const { code, message } = Either.getOrElse(
    Either.map(readError(answer), ({ error }) => error),
    () => ({ code: `http_${status}`, message: `HTTP ${status}` })
  )
  const who = `${account.platform}:${account.username}`
  if (status === 429) return refused("rate_limited", "rate_limited", `${who}: ${message}`, true, retryAfterMs(answer.retryAfter))
  if (status >= 500) return refused("transient", "platform_unavailable", `${who}: ${message} (HTTP ${status})`, true)
  if (status === 401) return refused("auth_expired", code, `${who}: ${message}; reconnect the account, then retry the delivery`)
  if (status === 403) return refused("permission_missing", code, `${who}: ${message} (HTTP ${status})`)
  if (status === 404) return refused("not_found", code, `${who}: ${message} (HTTP ${status})`)
  if (status === 400 && code === "invalid_media") return refused("media_rejected", code, `${who}: ${message}`)
  return refused("content_rejected", code, `${who}: ${message}`)
}

const unexpected = (account: SocialAccount, answer: JsonAnswer) => `${account.platform} answered HTTP ${answer.status}, which Herald did not expect`

/** A publishing call's failure: an answer that is no refusal may have done anything, so it is an unknown outcome. */
const publishFailure = (account: SocialAccount, answer: JsonAnswer): PublishFailed | OutcomeUnknown => {
  const refusal = refusalOf(account, answer)
  return refusal === undefined ? new OutcomeUnknown({ detail: unexpected(account, answer) }) : new PublishFailed(refusal)
}

/** A read's failure: it changed nothing, so an answer that is no refusal is only worth trying again. */
const readFailure = (account: SocialAccount, answer: JsonAnswer): PlatformCallFailed => {
  const refusal = refusalOf(account, answer) ?? refused("transient", `http_${answer.status}`, unexpected(account, answer))
  return new PlatformCallFailed({ error: refusal.error, retryAfterMs: refusal.retryAfterMs })
}

/** A refused connection never carried the request; any other broken exchange may have. */
const transportFailure = (account: SocialAccount, error: TransportError) =>
  error.sent
    ? new OutcomeUnknown({ detail: `${account.platform} gave no usable answer: ${error.message}` })
    : new PublishFailed(refused("transient", "network_unreachable", `${account.platform} could not be reached: ${error.message}`, true))

const readTransportFailure = (account: SocialAccount, error: TransportError) =>
  new PlatformCallFailed({
    error: error.sent
      ? { category: "transient", code: "no_answer", message: `${account.platform} gave no usable answer: ${error.message}` }
      : { category: "transient", code: "network_unreachable", message: `${account.platform} could not be reached: ${error.message}` },
    retryAfterMs: null
  })

/** A created post from its answer; unreadable, it may well exist all the same. */
const published = (account: SocialAccount, answer: JsonAnswer): Either.Either<Published, OutcomeUnknown> =>
  Either.match(readPost(answer), {
    onLeft: (error) => Either.left(new OutcomeUnknown({ detail: `unreadable answer from ${account.platform}: ${error}` })),
    onRight: (post) => Either.right({ platformPostId: post.id, url: post.url, note: null })
  })

/** A read's answer through its schema; unreadable, it is worth asking again. */
const readAnswer = <A>(read: (answer: JsonAnswer) => Either.Either<A, string>, account: SocialAccount, answer: JsonAnswer) =>
  Either.mapLeft(read(answer), (error) =>
    new PlatformCallFailed({
      error: { category: "transient", code: "unreadable_answer", message: `unreadable answer from ${account.platform}: ${error}` },
      retryAfterMs: null
    }))

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
    const read = (account: SocialAccount, path: string) =>
      Effect.mapError(http.send("GET", path), (error) => readTransportFailure(account, error))

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
          answer.status === 201 ? published(request.account, answer) : Effect.fail(publishFailure(request.account, answer))
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
            : Effect.fail(publishFailure(request.account, answer))
      )

    const takedown = (account: SocialAccount, platformPostId: string) =>
      Effect.flatMap(
        call(account, "DELETE", `${posts(account.platform)}/${encodeURIComponent(platformPostId)}`),
        (answer): Effect.Effect<void, PublishFailed | OutcomeUnknown | AlreadyGone> =>
          answer.status === 204
            ? Effect.void
            : answer.status === 404
            ? Effect.fail(new AlreadyGone({ detail: `${account.platform} holds no live post ${platformPostId}` }))
            : Effect.fail(publishFailure(account, answer))
      )

    /** The post's engagement so far; a post the network no longer holds is not_found. */
    const metrics = (account: SocialAccount, platformPostId: string): Effect.Effect<PostMetrics, PlatformCallFailed> =>
      Effect.flatMap(
        read(account, `${posts(account.platform)}/${encodeURIComponent(platformPostId)}/metrics`),
        (answer) =>
          answer.status === 200
            ? Effect.map(readAnswer(readMetrics, account, answer), (counts) => ({ ...counts, clicks: null, videoViews: null }))
            : Effect.fail(readFailure(account, answer))
      )

    /** The connection as the network sees it; a dead token is auth_expired. */
    const probe = (account: SocialAccount) =>
      Effect.flatMap(
        read(account, `/v1/${account.platform}/accounts/${encodeURIComponent(account.username)}`),
        (answer) =>
          answer.status === 200
            ? Effect.map(readAnswer(readProbe, account, answer), (token) =>
              ConnectionHealth.Alive({ expiresAt: token.expires_at, granted: token.permissions, needed: simulatedPermissions }))
            : Effect.fail(readFailure(account, answer))
      )

    /** The people-tag handles the network does not know (404 on its user lookup). */
    const unknownHandles = (account: SocialAccount, handles: ReadonlyArray<string>) =>
      Effect.filter(handles, (handle) =>
        Effect.flatMap(
          call(account, "GET", `/v1/${account.platform}/users/${encodeURIComponent(handle)}`),
          (answer) =>
            answer.status === 200 || answer.status === 404
              ? Effect.succeed(answer.status === 404)
              : Effect.fail(publishFailure(account, answer))
        ), { concurrency: 4 })

    return {
      publish,
      reconcile,
      takedown,
      unknownHandles,
      metrics,
      probe
    } satisfies Publisher & Record<string, unknown>
  })

export type SimulatorPublisher = Effect.Effect.Success<ReturnType<typeof makeSimulatorPublisher>>

/**
 * The simulator client as a MetricsSource: a post the network no longer holds has no numbers,
 * ever, and neither has a story (the network reports nothing on them).
 */
const metricsSource = (simulator: SimulatorPublisher): MetricsSource => ({
  fetch: ({ account, platformPostId }) =>
    simulator.metrics(account, platformPostId).pipe(
      Effect.map((metrics) => MetricsReading.Reported({ metrics })),
      Effect.catchIf(
        (failure) => failure.error.category === "not_found" || failure.error.code === metricsUnsupported,
        (failure) =>
          Effect.succeed(MetricsReading.Unreportable({
            reason: failure.error.code === metricsUnsupported ? "unsupported" : "deleted",
            detail: failure.error.message
          }))
      )
    )
})

/** The simulator client as a ConnectionProbe: a token the network refuses is an answer, not a failure. */
const connectionProbe = (simulator: SimulatorPublisher): ConnectionProbe => ({
  check: (account) =>
    simulator.probe(account).pipe(
      Effect.catchIf(
        (failure): failure is PlatformCallFailed => failure.error.category === "auth_expired",
        (failure) => Effect.succeed(ConnectionHealth.Refused({ code: failure.error.code, message: failure.error.message }))
      )
    )
})

/** The simulator route of all nine platforms, served by one client. */
export const simulatorAdapters = (simulator: SimulatorPublisher): ReadonlyArray<RouteAdapters> => {
  const metrics = metricsSource(simulator)
  const probe = connectionProbe(simulator)
  return platforms.map((platform) => ({ platform, route: "simulator", publisher: simulator, metrics, probe }))
}

/**
 * Publishers, MetricsSources and ConnectionProbes for the simulator route on all nine platforms,
 * and the routes in `others` (the direct ones the app builds); any other route is refused. Their
 * connections close with the layer.
 */
export const SimulatorPublishers = {
  layer: (options: SimulatorPublisherOptions, others: ReadonlyArray<RouteAdapters> = []) =>
    Layer.unwrapScoped(
      Effect.map(makeSimulatorPublisher(options), (simulator) => registry([...simulatorAdapters(simulator), ...others]))
    )
}
