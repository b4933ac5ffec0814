import { createHmac, timingSafeEqual } from "node:crypto"
import { Either, Schema } from "effect"

/** The four request headers every webhook carries (lower case, as HTTP/2 and Node deliver them). */
export const WebhookHeader = {
  event: "x-service-event",
  delivery: "x-service-delivery",
  timestamp: "x-service-timestamp",
  signature: "x-service-signature"
} as const
export type WebhookHeader = typeof WebhookHeader[keyof typeof WebhookHeader]

/** Receivers refuse a timestamp further than this from their clock, in either direction. */
export const defaultToleranceSeconds = 300

/** A raw request body exactly as it came off the wire: never a re-serialised parse. */
export type RawBody = string | Uint8Array

/** Request headers as Node (`req.headers`) or the Fetch API (`Headers`) gives them. */
export type IncomingHeaders =
  | Headers
  | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const scheme = "v1"
const signaturePattern = /^[0-9a-f]{64}$/i
const timestampPattern = /^\d{1,15}$/

const digest = (secret: string, timestamp: number, rawBody: RawBody): Buffer =>
  createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest()

/**
 * One `v1=` signature: the hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the secret.
 * `timestamp` is in integer seconds since the epoch.
 */
export const sign = (options: {
  readonly secret: string
  readonly timestamp: number
  readonly rawBody: RawBody
}): string => `${scheme}=${digest(options.secret, options.timestamp, options.rawBody).toString("hex")}`

/**
 * The `x-service-signature` value: one `v1=` entry per secret, space-separated. Signing with the
 * old and the new secret while an endpoint's secret rotates lets receivers switch at their pace.
 */
export const signatureHeader = (
  secrets: ReadonlyArray<string>,
  timestamp: number,
  rawBody: RawBody
): string => secrets.map((secret) => sign({ secret, timestamp, rawBody })).join(" ")

export class MissingHeader extends Schema.TaggedError<MissingHeader>()("MissingHeader", {
  header: Schema.String
}) {
  override get message(): string {
    return `the ${this.header} header is missing`
  }
}

export class MalformedHeader extends Schema.TaggedError<MalformedHeader>()("MalformedHeader", {
  header: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `the ${this.header} header is malformed: ${this.detail}`
  }
}

export class BadSignature extends Schema.TaggedError<BadSignature>()("BadSignature", {}) {
  override get message(): string {
    return "no v1 signature matches the body and timestamp for this secret"
  }
}

/** The signature is genuine but was made too long ago: a replay or a badly skewed clock. */
export class StaleTimestamp extends Schema.TaggedError<StaleTimestamp>()("StaleTimestamp", {
  timestamp: Schema.Number,
  now: Schema.Number,
  toleranceSeconds: Schema.Number
}) {
  override get message(): string {
    return `the timestamp ${this.timestamp} is ${this.now - this.timestamp} s old, beyond the ${this.toleranceSeconds} s tolerance`
  }
}

/** The signature is genuine but dated ahead of the receiver's clock beyond the tolerance. */
export class FutureTimestamp extends Schema.TaggedError<FutureTimestamp>()("FutureTimestamp", {
  timestamp: Schema.Number,
  now: Schema.Number,
  toleranceSeconds: Schema.Number
}) {
  override get message(): string {
    return `the timestamp ${this.timestamp} is ${this.timestamp - this.now} s in the future, beyond the ${this.toleranceSeconds} s tolerance`
  }
}

export type VerificationError = MissingHeader | MalformedHeader | BadSignature | StaleTimestamp | FutureTimestamp

/** What a successful verification vouches for. */
export interface VerifiedWebhook {
  readonly event: string
  readonly deliveryId: string
  readonly timestamp: number
}

export interface VerifyOptions {
  /** Seconds either side of `now` a timestamp may be; 300 by default. */
  readonly toleranceSeconds?: number
  /** The receiver's current time (tests); the system clock by default. */
  readonly now?: Date | number
}

const headerValue = (headers: IncomingHeaders, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name)
  const value = key === undefined ? undefined : headers[key]
  if (value === undefined || typeof value === "string") return value
  // A repeated header is ambiguous; joining keeps every signature visible to the parser below.
  return value.join(" ")
}

const requireHeader = (headers: IncomingHeaders, name: string): Either.Either<string, MissingHeader> => {
  const value = headerValue(headers, name)?.trim()
  return value === undefined || value === "" ? Either.left(new MissingHeader({ header: name })) : Either.right(value)
}

const parseTimestamp = (value: string): Either.Either<number, MalformedHeader> =>
  timestampPattern.test(value)
    ? Either.right(Number(value))
    : Either.left(new MalformedHeader({ header: WebhookHeader.timestamp, detail: "expected integer seconds since the epoch" }))

/** The `v1=` digests; entries with other scheme tags are skipped so a future scheme can ride alongside. */
const parseSignatures = (value: string): Either.Either<ReadonlyArray<Buffer>, MalformedHeader> => {
  const candidates = value.split(/[\s,]+/).filter((entry) => entry.startsWith(`${scheme}=`))
  const malformed = (detail: string) => Either.left(new MalformedHeader({ header: WebhookHeader.signature, detail }))
  if (candidates.length === 0) return malformed(`expected one or more space-separated ${scheme}=<hex> entries`)
  const hex = candidates.map((entry) => entry.slice(scheme.length + 1))
  if (!hex.every((digest) => signaturePattern.test(digest))) {
    return malformed(`a ${scheme} signature must be 64 hexadecimal characters`)
  }
  return Either.right(hex.map((digest) => Buffer.from(digest, "hex")))
}

/**
 * Checks a webhook the way a receiver must: over the raw body, before parsing it.
 *
 * The signature header may hold several space-separated `v1=` entries (the sender signs with the
 * old and new secret while a secret rotates); `secret` may likewise list several secrets. Any
 * match is accepted. Digests are compared in constant time. Then the timestamp must lie within
 * the tolerance (300 s) of `now` in either direction.
 */
export const verify = (
  rawBody: RawBody,
  headers: IncomingHeaders,
  secret: string | ReadonlyArray<string>,
  options: VerifyOptions = {}
): Either.Either<VerifiedWebhook, VerificationError> =>
  Either.gen(function*() {
    const event = yield* requireHeader(headers, WebhookHeader.event)
    const deliveryId = yield* requireHeader(headers, WebhookHeader.delivery)
    const timestamp = yield* Either.flatMap(requireHeader(headers, WebhookHeader.timestamp), parseTimestamp)
    const signatures = yield* Either.flatMap(requireHeader(headers, WebhookHeader.signature), parseSignatures)

    const secrets = typeof secret === "string" ? [secret] : secret
    const expected = secrets.map((key) => digest(key, timestamp, rawBody))
    // Every pair is compared so the time taken does not reveal which entry matched.
    const matched = expected
      .flatMap((mine) => signatures.map((theirs) => timingSafeEqual(mine, theirs)))
      .reduce((any, match) => any || match, false)
    if (!matched) return yield* Either.left(new BadSignature())

    const toleranceSeconds = options.toleranceSeconds ?? defaultToleranceSeconds
    const nowMillis = options.now === undefined ? Date.now() : typeof options.now === "number" ? options.now : options.now.getTime()
    const now = Math.floor(nowMillis / 1000)
    if (now - timestamp > toleranceSeconds) {
      return yield* Either.left(new StaleTimestamp({ timestamp, now, toleranceSeconds }))
    }
    if (timestamp - now > toleranceSeconds) {
      return yield* Either.left(new FutureTimestamp({ timestamp, now, toleranceSeconds }))
    }
    return { event, deliveryId, timestamp }
  })
