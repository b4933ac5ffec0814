import { execFile } from "node:child_process"
import { type MediaFacts, type MediaKind, MediaProbe, traced, UnsupportedMedia } from "@herald/core"
import { Effect, Either, Layer, Schema } from "effect"

/** ffprobe could not be run: video and image facts would be missing, so Herald does not start. */
export class FfprobeMissing extends Schema.TaggedError<FfprobeMissing>()("FfprobeMissing", {
  command: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `ffprobe is required for media uploads and could not be run as ${JSON.stringify(this.command)} (${this.detail}); ` +
      "install ffmpeg (Debian: apt-get install ffmpeg) or set HERALD_FFPROBE to its path"
  }
}

/** The types Herald takes, by the MIME type the bytes show, and what each is. */
export const acceptedTypes: Readonly<Record<string, MediaKind>> = {
  "image/jpeg": "image",
  "image/png": "image",
  "image/gif": "image",
  "image/webp": "image",
  "video/mp4": "video",
  "video/quicktime": "video",
  "application/pdf": "document"
}

interface ProbeOutput {
  readonly streams?: ReadonlyArray<{
    readonly codec_type?: string
    readonly codec_name?: string
    readonly width?: number
    readonly height?: number
  }>
  readonly format?: { readonly duration?: string }
}

/** Runs a command (ffprobe, ffmpeg) to its end: its output, or the first line of what it complained. */
export const run = (command: string, args: ReadonlyArray<string>) =>
  Effect.async<string, { readonly detail: string }>((resume, signal) => {
    execFile(command, args, { timeout: 30_000, maxBuffer: 1024 * 1024, signal }, (error, stdout, stderr) =>
      resume(
        error === null
          ? Effect.succeed(stdout)
          : Effect.fail({ detail: (stderr.trim() || error.message).split("\n")[0]! })
      ))
  })

/**
 * The path of the ffprobe binary that @ffprobe-installer/ffprobe ships for this platform (in its
 * per-platform optional dependency); the import throws where it ships none.
 */
const bundledFfprobe = Effect.tryPromise({
  try: () => import("@ffprobe-installer/ffprobe").then((bundled) => bundled.default.path),
  catch: (error) => ({ detail: error instanceof Error ? error.message : String(error) })
})

/**
 * The ffprobe command to run, checked by running `-version` (the start-up check): `configured`
 * when given (HERALD_FFPROBE), else `ffprobe` on the PATH, else the binary bundled with Herald's
 * dependencies. FfprobeMissing when none runs.
 */
export const resolveFfprobe = traced("resolveFfprobe")(function*(configured?: string) {
  const version = (command: string) => Effect.as(run(command, ["-version"]), command)
  if (configured !== undefined) {
    return yield* version(configured).pipe(Effect.mapError(({ detail }) => new FfprobeMissing({ command: configured, detail })))
  }
  const onPath = yield* Effect.either(version("ffprobe"))
  if (Either.isRight(onPath)) return onPath.right
  const bundled = yield* Effect.either(Effect.flatMap(bundledFfprobe, version))
  if (Either.isRight(bundled)) return bundled.right
  return yield* new FfprobeMissing({
    command: "ffprobe",
    detail: `${onPath.left.detail}; the bundled one: ${bundled.left.detail}`
  })
})

/**
 * The type from the file's first bytes (file-type), never its name or declared type; then
 * ffprobe for dimensions and, on a video, the duration and the presence of a video stream.
 */
export const ffprobeMediaProbe = (configured?: string) =>
  Layer.effect(
    MediaProbe,
    Effect.map(resolveFfprobe(configured), (command) => MediaProbe.of({
      inspect: traced("MediaProbe.inspect")(function*(file) {
        // file-type is imported on the first file inspected, not at start (bench/README.md, Footprint).
        const sniffed = yield* Effect.promise(() => import("file-type").then(({ fileTypeFromFile }) => fileTypeFromFile(file.location)))
        const mime = sniffed?.mime ?? null
        const kind = mime === null ? undefined : acceptedTypes[mime]
        if (kind === undefined) {
          return yield* new UnsupportedMedia({
            detected: mime,
            reason: `${mime === null ? "the file's type is not recognised" : `${mime} is not accepted`}; ` +
              "send an image (JPEG, PNG, GIF, WebP), a video (MP4, MOV) or a PDF"
          })
        }
        const plain: MediaFacts = { kind, mime: mime!, width: null, height: null, durationSeconds: null, codec: null }
        if (kind === "document") return plain
        const unreadable = (detail: string) => new UnsupportedMedia({ detected: mime, reason: `the ${mime} file could not be read: ${detail}` })
        const output = yield* run(command, [
          "-v", "error",
          "-show_entries", "format=duration:stream=codec_type,codec_name,width,height",
          "-of", "json",
          file.location
        ]).pipe(Effect.mapError(({ detail }) => unreadable(detail)))
        const probed = JSON.parse(output) as ProbeOutput
        const picture = probed.streams?.find((stream) => stream.codec_type === "video")
        if (picture === undefined) return yield* unreadable(kind === "video" ? "it has no video stream" : "it holds no picture")
        const duration = Number(probed.format?.duration)
        return {
          ...plain,
          width: picture.width ?? null,
          height: picture.height ?? null,
          codec: picture.codec_name ?? null,
          durationSeconds: kind === "video" && Number.isFinite(duration) ? duration : null
        }
      })
    }))
  )
