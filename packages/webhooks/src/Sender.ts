import { OutboundGuard } from "@herald/outbound"
import { Clock, Data, Duration, Effect, Either, Option, Redacted } from "effect"
import { type WebhookRequest, webhookHeaders } from "./WebhookRequest.js"
import { traced } from "@herald/core"

/** Where a webhook goes. Several secrets sign with each (old and new while a secret rotates). */
export interface WebhookTarget {
  readonly url: string
  readonly secret: string | readonly [string, ...Array<string>]
}

/** The plain secrets a target signs with, unwrapped only here, on the way into the HMAC. */
export const signingKeys = (
  secrets: readonly [Redacted.Redacted<string>, ...Array<Redacted.Redacted<string>>]
): readonly [string, ...Array<string>] => {
  const [first, ...rest] = secrets
  return [Redacted.value(first), ...rest.map(Redacted.value)]
}

export type EndpointVerdict = Data.TaggedEnum<{
  Accepted: {}
  Rejected: { readonly reason: string }
}>
export const EndpointVerdict = Data.taggedEnum<EndpointVerdict>()

/** One attempt, as the delivery log records it. */
export interface SendResult {
  /** None when no response arrived (refused destination, timeout, connection failure). */
  readonly status: Option.Option<number>
  readonly latencyMs: number
  /** The first bytes of the reply, decoded as UTF-8. */
  readonly bodyPrefix: string
  readonly outcome: EndpointVerdict
}

export const webhookTimeout = Duration.seconds(10)
export const bodyPrefixBytes = 512
/** Only the prefix is kept; the cap bounds what a reply may stream before it is cut off. */
const replyCapBytes = 1024 * 1024

const describeStatus = (status: number): string =>
  status >= 300 && status < 400
    ? `the endpoint answered ${status}, a redirect, and redirects are not followed`
    : `the endpoint answered ${status}`

/**
 * One signed attempt: signs at the current Clock second, POSTs through the outbound guard, and
 * accepts any 2xx. Everything else, a 3xx included, is Rejected with the reason; never fails.
 */
export const send = traced("webhooks.send")(function*(
  target: WebhookTarget,
  request: WebhookRequest,
  options: { readonly timeout?: Duration.DurationInput } = {}
) {
  const guard = yield* OutboundGuard
  const timestamp = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  const secrets = typeof target.secret === "string" ? [target.secret] : target.secret
  const exchange = Effect.scoped(Effect.gen(function*() {
    const response = yield* guard.request({
      method: "POST",
      url: target.url,
      headers: webhookHeaders(request, secrets, timestamp),
      body: request.body,
      timeout: options.timeout ?? webhookTimeout,
      maxBytes: replyCapBytes
    })
    // The status decides; the body is only logged, so a reply cut short or too long costs its prefix, not the outcome.
    const prefix = yield* response.body.prefix(bodyPrefixBytes).pipe(Effect.orElseSucceed(() => new Uint8Array()))
    return { status: response.status, bodyPrefix: Buffer.from(prefix).toString("utf8") }
  }))
  const [elapsed, result] = yield* Effect.timed(Effect.either(exchange))
  const latencyMs = Math.round(Duration.toMillis(elapsed))
  if (Either.isLeft(result)) {
    return {
      status: Option.none(),
      latencyMs,
      bodyPrefix: "",
      outcome: EndpointVerdict.Rejected({ reason: result.left.message })
    } satisfies SendResult
  }
  const { bodyPrefix, status } = result.right
  return {
    status: Option.some(status),
    latencyMs,
    bodyPrefix,
    outcome: status >= 200 && status < 300 ? EndpointVerdict.Accepted() : EndpointVerdict.Rejected({ reason: describeStatus(status) })
  } satisfies SendResult
})
