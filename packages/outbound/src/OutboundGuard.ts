import { promises as dns, type LookupAddress } from "node:dns"
import type { IncomingHttpHeaders } from "node:http"
import { isIP, type LookupFunction } from "node:net"
import { Context, Duration, Effect, Exit, Layer, Schema, Scope, Stream } from "effect"
import type { Agent, request } from "undici"
import { traced } from "@herald/core"
import { addressRefusal, refusedRangeOf } from "./RefusedRanges.js"

/** The destination is not a public https address; `reason` says why, naming host and address. */
export class OutboundRefused extends Schema.TaggedError<OutboundRefused>()("OutboundRefused", {
  reason: Schema.String
}) {
  override get message(): string {
    return `outbound request refused: ${this.reason}`
  }
}

export class OutboundTimeout extends Schema.TaggedError<OutboundTimeout>()("OutboundTimeout", {
  host: Schema.String,
  timeoutMillis: Schema.Number
}) {
  override get message(): string {
    return `${this.host} did not answer within ${this.timeoutMillis} ms`
  }
}

export class ResponseTooLarge extends Schema.TaggedError<ResponseTooLarge>()("ResponseTooLarge", {
  host: Schema.String,
  maxBytes: Schema.Number
}) {
  override get message(): string {
    return `the response from ${this.host} exceeds ${this.maxBytes} bytes`
  }
}

export class TooManyRedirects extends Schema.TaggedError<TooManyRedirects>()("TooManyRedirects", {
  host: Schema.String,
  limit: Schema.Number
}) {
  override get message(): string {
    return `${this.host} redirected more than ${this.limit} time(s)`
  }
}

/** The connection or exchange failed (refused, reset, TLS): `detail` is the transport's own words. */
export class OutboundFailed extends Schema.TaggedError<OutboundFailed>()("OutboundFailed", {
  host: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `request to ${this.host} failed: ${this.detail}`
  }
}

/** The loopback allowance was asked for in production mode, where it would reopen SSRF. */
export class LoopbackAllowedInProduction extends Schema.TaggedError<LoopbackAllowedInProduction>()(
  "LoopbackAllowedInProduction",
  {}
) {
  override get message(): string {
    return "the outbound loopback allowance is for tests and local development and is refused in production mode"
  }
}

export type OutboundError = OutboundRefused | OutboundTimeout | ResponseTooLarge | TooManyRedirects | OutboundFailed

/** Resolves a host name to every address it has (dns.lookup with all: true by default). */
export type ResolveHost = (hostname: string) => Promise<ReadonlyArray<LookupAddress>>

export interface OutboundGuardOptions {
  /**
   * Lets http:// URLs and loopback addresses through, for tests and local development only.
   * Refused (LoopbackAllowedInProduction) when `production` is set.
   */
  readonly allowLoopback?: boolean
  /**
   * Narrower than allowLoopback: http:// and literal loopback addresses on these ports only (a
   * test's own server), while every other loopback destination stays refused. Names are still
   * judged without it. Refused in production mode like allowLoopback.
   */
  readonly loopbackPorts?: ReadonlyArray<number>
  /** Production mode; defaults to NODE_ENV === "production". */
  readonly production?: boolean
  /** Name resolution; tests inject one to make a name resolve to a chosen address. */
  readonly resolveHost?: ResolveHost
  /** Extra trusted certificate authorities (a test's self-signed certificate). */
  readonly ca?: string | Buffer | ReadonlyArray<string | Buffer>
  /** Keep-alive connections per origin. */
  readonly connectionsPerOrigin?: number
}

interface RequestBase {
  readonly url: string
  readonly headers?: Readonly<Record<string, string>>
  /** Covers the whole exchange: connection, headers and reading the body. */
  readonly timeout: Duration.DurationInput
  /** Reading the body fails with ResponseTooLarge past this many bytes. */
  readonly maxBytes: number
}

/**
 * A request other than GET never follows redirects: a 3xx comes back as the response. A GET
 * follows at most `followRedirects` hops, each re-validated like the first; one more is
 * TooManyRedirects.
 */
export type OutboundRequest =
  | RequestBase & { readonly method: "POST"; readonly body: string | Uint8Array }
  | RequestBase & { readonly method: "PUT" | "PATCH" | "DELETE"; readonly body?: string | Uint8Array }
  | RequestBase & { readonly method: "GET"; readonly followRedirects: number }

export interface OutboundResponse {
  /** Where the response came from, after any redirects. */
  readonly url: URL
  readonly status: number
  readonly headers: IncomingHttpHeaders
  /**
   * The body, readable once and within the request's scope (closing it releases the connection),
   * in one of three ways. Each fails with ResponseTooLarge past the request's `maxBytes`.
   */
  readonly body: {
    /** Chunk by chunk, memory flat: for bodies worth streaming to disk. */
    readonly stream: Stream.Stream<Uint8Array, OutboundError>
    /** The whole body. */
    readonly bytes: Effect.Effect<Uint8Array, OutboundError>
    /** At most the first `length` bytes, reading no further than needed. */
    readonly prefix: (length: number) => Effect.Effect<Uint8Array, OutboundError>
  }
}

/** Thrown inside the connect-time lookup; undici hands it back unchanged. */
class AddressRefused extends Error {}

const defaultResolveHost: ResolveHost = (hostname) => dns.lookup(hostname, { all: true, verbatim: true })

/**
 * Why the answer for `hostname` is not a public destination, or undefined when it is. Every
 * address is judged, not only the one dialled: a mixed answer is a rebinding attempt.
 */
const resolvedRefusal = (
  hostname: string,
  addresses: ReadonlyArray<LookupAddress>,
  allowLoopback: boolean
): string | undefined => {
  if (addresses.length === 0) return `${hostname} resolves to no address`
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, { allowLoopback })
    if (refusal !== undefined) return `${hostname} resolves to ${address}, ${refusal}`
  }
  return undefined
}

const guardedLookup = (resolveHost: ResolveHost, allowLoopback: boolean): LookupFunction =>
(hostname, options, callback) => {
  resolveHost(hostname).then(
    (addresses) => {
      const refusal = resolvedRefusal(hostname, addresses, allowLoopback)
      if (refusal !== undefined) return callback(new AddressRefused(refusal), [])
      const first = addresses[0]!
      return options.all ? callback(null, [...addresses]) : callback(null, first.address, first.family)
    },
    (error: NodeJS.ErrnoException) => callback(error, [])
  )
}

/**
 * Reads until `keep` bytes are held or the body ends, throwing past `cap` bytes. A plain loop:
 * the sender reads a short reply per webhook, where a Stream's per-chunk machinery would dominate.
 */
const readUpTo = async (
  body: AsyncIterable<Uint8Array>,
  keep: number,
  cap: number,
  tooLarge: () => ResponseTooLarge
): Promise<Buffer> => {
  const chunks: Array<Uint8Array> = []
  let held = 0
  let total = 0
  for await (const chunk of body) {
    total += chunk.byteLength
    if (total > cap) throw tooLarge()
    chunks.push(chunk)
    held += chunk.byteLength
    if (held >= keep) break
  }
  return Buffer.concat(chunks)
}

/** Destroying an unread undici body emits an abort error nobody needs to hear. */
const ignore = () => {}

const redirectStatuses = new Set([301, 302, 303, 307, 308])

/** The host without the brackets of an IPv6 literal. */
const bareHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1")

const headerText = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value?.[0]

export class OutboundGuard extends Context.Tag("@herald/outbound/OutboundGuard")<OutboundGuard, {
  /** One exchange with a public https destination; the response lives until the scope closes. */
  readonly request: (request: OutboundRequest) => Effect.Effect<OutboundResponse, OutboundError, Scope.Scope>
  /**
   * Judges a URL without connecting (when a webhook endpoint is saved): the scheme, a literal IP,
   * or every address the name resolves to now. `request` judges again at connect time, since a
   * name may resolve elsewhere later.
   */
  readonly check: (url: string) => Effect.Effect<void, OutboundRefused>
}>() {
  static readonly make = traced("OutboundGuard.make")(function*(options: OutboundGuardOptions = {}) {
    const allowLoopback = options.allowLoopback ?? false
    const production = options.production ?? process.env.NODE_ENV === "production"
    const loopbackPorts = new Set(options.loopbackPorts ?? [])
    if ((allowLoopback || loopbackPorts.size > 0) && production) return yield* new LoopbackAllowedInProduction()
    const resolveHost = options.resolveHost ?? defaultResolveHost

    // undici is imported on the first request, not with the layer: a server that never calls out
    // (or not yet) does not hold its code (bench/README.md, Footprint). Its connection pool is made
    // then too, once, and closed with the layer's scope.
    let client: Promise<{ readonly agent: Agent; readonly request: typeof request }> | undefined
    const connected = () =>
      client ??= import("undici").then(({ Agent, request }) => ({
        request,
        agent: new Agent({
          connections: options.connectionsPerOrigin ?? 16,
          keepAliveTimeout: 10_000,
          connect: {
            lookup: guardedLookup(resolveHost, allowLoopback),
            ...(options.ca === undefined ? {} : { ca: options.ca as string | Buffer | Array<string | Buffer> })
          }
        })
      }))
    yield* Effect.addFinalizer(() =>
      client === undefined ? Effect.void : Effect.promise(() => client!.then(({ agent }) => agent.destroy(), () => undefined))
    )

    /** The checks that need no connection: the scheme, and literal IP hosts (they skip lookup). */
    const checkDestination = (url: URL): OutboundRefused | undefined => {
      const host = bareHost(url)
      const exempt = isIP(host) !== 0 && loopbackPorts.has(Number(url.port)) && refusedRangeOf(host)?.loopback === true
      if (url.protocol !== "https:" && !(url.protocol === "http:" && (allowLoopback || exempt))) {
        return new OutboundRefused({ reason: `${url.host} is reached over ${url.protocol.slice(0, -1)}; only https is allowed` })
      }
      if (isIP(host) === 0) return undefined
      const refusal = addressRefusal(host, { allowLoopback: allowLoopback || exempt })
      return refusal === undefined ? undefined : new OutboundRefused({ reason: `${host} is ${refusal}` })
    }

    const exchange = Effect.fnUntraced(function*(url: URL, init: {
      readonly method: OutboundRequest["method"]
      readonly headers: Readonly<Record<string, string>> | undefined
      readonly body: string | Uint8Array | undefined
      readonly signal: AbortSignal
      readonly timedOut: () => OutboundTimeout
    }) {
      const refused = checkDestination(url)
      if (refused !== undefined) return yield* refused
      const toError = (cause: unknown): OutboundError => {
        if (cause instanceof AddressRefused) return new OutboundRefused({ reason: cause.message })
        if (init.signal.aborted) return init.timedOut()
        const code = (cause as { code?: unknown }).code
        const detail = cause instanceof Error ? cause.message : String(cause)
        return new OutboundFailed({ host: url.host, detail: typeof code === "string" ? `${code}: ${detail}` : detail })
      }
      const response = yield* Effect.tryPromise({
        try: () =>
          connected().then(({ agent, request }) =>
            request(url, {
              dispatcher: agent,
              method: init.method,
              headers: init.headers,
              body: init.body,
              signal: init.signal
            })
          ),
        catch: toError
      })
      // An unread body must not outlive the scope (or hold the connection); a read one is released already.
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (!response.body.readableEnded) response.body.on("error", ignore).destroy()
        })
      )
      return { response, toError }
    })

    const guardedRequest = traced("OutboundGuard.request")(function*(outbound: OutboundRequest) {
      const parsed = URL.canParse(outbound.url) ? new URL(outbound.url) : undefined
      if (parsed === undefined) return yield* new OutboundRefused({ reason: "the URL is not a valid absolute URL" })
      const timeoutMillis = Duration.toMillis(outbound.timeout)

      // One wall-clock deadline for the whole exchange, body included: the abort reaches undici
      // wherever it is. Closing the scope early (interruption) cancels the same way.
      const deadline = new AbortController()
      const timer = setTimeout(() => deadline.abort(), timeoutMillis)
      yield* Effect.addFinalizer((exit) =>
        Effect.sync(() => {
          clearTimeout(timer)
          if (Exit.isInterrupted(exit)) deadline.abort()
        })
      )
      const timedOut = () => new OutboundTimeout({ host: parsed.host, timeoutMillis })

      const limit = outbound.method === "GET" ? outbound.followRedirects : 0
      let url = parsed
      for (let hop = 0;; hop++) {
        const sameOrigin = url.origin === parsed.origin
        const { response, toError } = yield* exchange(url, {
          method: outbound.method,
          // Caller headers (credentials, say) never follow a redirect to another origin.
          headers: sameOrigin ? outbound.headers : undefined,
          body: outbound.method === "GET" ? undefined : outbound.body,
          signal: deadline.signal,
          timedOut
        })
        const location = headerText(response.headers.location)
        if (outbound.method === "GET" && redirectStatuses.has(response.statusCode) && location !== undefined) {
          if (hop >= limit) return yield* new TooManyRedirects({ host: parsed.host, limit })
          const next = URL.canParse(location, url.href) ? new URL(location, url) : undefined
          if (next === undefined) {
            return yield* new OutboundFailed({ host: url.host, detail: "the redirect Location is not a valid URL" })
          }
          // Draining a short redirect body keeps the connection for the next hop.
          yield* Effect.tryPromise({ try: () => response.body.dump({ limit: 64 * 1024 }), catch: toError })
          url = next
          continue
        }

        const host = url.host
        const tooLarge = () => new ResponseTooLarge({ host, maxBytes: outbound.maxBytes })
        const read = (keep: number) =>
          Effect.tryPromise({
            try: () => readUpTo(response.body, keep, outbound.maxBytes, tooLarge),
            catch: (cause) => cause instanceof ResponseTooLarge ? cause : toError(cause)
          })
        const body: OutboundResponse["body"] = {
          stream: Stream.fromAsyncIterable<Uint8Array, OutboundError>(response.body, toError).pipe(
            Stream.mapAccumEffect(0, (total, chunk) =>
              total + chunk.byteLength > outbound.maxBytes
                ? Effect.fail(tooLarge())
                : Effect.succeed([total + chunk.byteLength, chunk] as const))
          ),
          bytes: read(Number.POSITIVE_INFINITY),
          prefix: (length) => Effect.map(read(length), (bytes) => bytes.subarray(0, length))
        }
        return { url, status: response.statusCode, headers: response.headers, body } satisfies OutboundResponse
      }
    })

    const check = traced("OutboundGuard.check")(function*(text: string) {
      const url = URL.canParse(text) ? new URL(text) : undefined
      if (url === undefined) return yield* new OutboundRefused({ reason: "the URL is not a valid absolute URL" })
      const refused = checkDestination(url)
      if (refused !== undefined) return yield* refused
      if (isIP(bareHost(url)) !== 0) return
      // A name that does not resolve here and now (no DNS yet, split horizon, an outage) is not
      // refused: every connection resolves and judges it again, and that check is the one that protects.
      const addresses = yield* Effect.promise(() => resolveHost(url.hostname).catch(() => null))
      if (addresses === null) return
      const refusal = resolvedRefusal(url.hostname, addresses, allowLoopback)
      if (refusal !== undefined) return yield* new OutboundRefused({ reason: refusal })
    })

    return OutboundGuard.of({ request: guardedRequest, check })
  })

  static readonly layer = (options: OutboundGuardOptions = {}): Layer.Layer<OutboundGuard, LoopbackAllowedInProduction> =>
    Layer.scoped(OutboundGuard, OutboundGuard.make(options))
}
