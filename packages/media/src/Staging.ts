import { randomUUID } from "node:crypto"
import { promises as fs } from "node:fs"
import * as Path from "node:path"
import { inSpan, MediaRejected, MediaStaging, MediaTooLarge, type StagedFile } from "@herald/core"
import { OutboundGuard, type OutboundError, ResponseTooLarge } from "@herald/outbound"
import { Duration, Effect, Layer, Stream } from "effect"

/** How long a URL fetch may take, body included, and how many redirects it follows. */
export interface FetchLimits {
  readonly timeout: Duration.DurationInput
  readonly followRedirects: number
}

export const defaultFetchLimits: FetchLimits = { timeout: "60 seconds", followRedirects: 3 }

const isOutboundError = (error: unknown): error is OutboundError =>
  typeof error === "object" && error !== null && "_tag" in error &&
  ["OutboundRefused", "OutboundTimeout", "ResponseTooLarge", "TooManyRedirects", "OutboundFailed"].includes(String(error._tag))

/**
 * Staged files are temporary files in `dir` (owner-only): written chunk by chunk with a byte
 * counter, so memory stays flat whatever the size, and removed when their scope closes unless
 * storage moved them away first.
 */
export const diskStaging = (dir: string, limits: FetchLimits = defaultFetchLimits) =>
  Layer.effect(
    MediaStaging,
    Effect.gen(function*() {
      yield* Effect.promise(() => fs.mkdir(dir, { recursive: true, mode: 0o700 }))
      const guard = yield* OutboundGuard

      const stage = <E>(
        bytes: Stream.Stream<Uint8Array, E>,
        options: { readonly maxBytes: number; readonly filename: string | null }
      ) =>
        Effect.gen(function*() {
          const location = Path.join(dir, randomUUID())
          const handle = yield* Effect.acquireRelease(
            Effect.promise(() => fs.open(location, "wx", 0o600)),
            (handle) => Effect.promise(() => handle.close().catch(() => undefined))
          )
          yield* Effect.addFinalizer(() => Effect.promise(() => fs.rm(location, { force: true })))
          let written = 0
          yield* Stream.runForEach(bytes, (chunk) => {
            written += chunk.byteLength
            return written > options.maxBytes
              ? Effect.fail(new MediaTooLarge({ maxBytes: options.maxBytes }))
              : Effect.promise(() => handle.write(chunk))
          })
          yield* Effect.promise(() => handle.close())
          return { location, bytes: written, filename: options.filename } satisfies StagedFile
        }).pipe(inSpan("MediaStaging.stage"))

      const fetch = (url: string, options: { readonly maxBytes: number }) =>
        Effect.gen(function*() {
          const response = yield* guard.request({
            method: "GET",
            url,
            timeout: limits.timeout,
            maxBytes: options.maxBytes,
            followRedirects: limits.followRedirects
          })
          if (response.status < 200 || response.status > 299) {
            return yield* new MediaRejected({ url, reason: `${response.url.host} answered HTTP ${response.status}` })
          }
          const declared = Number(response.headers["content-length"] ?? Number.NaN)
          if (declared > options.maxBytes) return yield* new MediaTooLarge({ maxBytes: options.maxBytes })
          const name = decodeURIComponent(response.url.pathname.split("/").pop() ?? "")
          return yield* stage(response.body.stream, { maxBytes: options.maxBytes, filename: name === "" ? null : name })
        }).pipe(
          Effect.catchIf(isOutboundError, (error) =>
            Effect.fail(
              error instanceof ResponseTooLarge
                ? new MediaTooLarge({ maxBytes: options.maxBytes })
                : new MediaRejected({ url, reason: error.message })
            )),
          inSpan("MediaStaging.fetch", { attributes: { "url.host": URL.canParse(url) ? new URL(url).host : "" } })
        )

      return MediaStaging.of({ stage, fetch })
    })
  )
