import * as Os from "node:os"
import * as Path from "node:path"
import { MediaIngestLive, MediaStorage } from "@herald/core"
import { Layer } from "effect"
import { ffmpegVideoFrames } from "./Frames.js"
import { localMediaStorage } from "./LocalStorage.js"
import { ffprobeMediaProbe } from "./Probe.js"
import { type BucketConfig, s3MediaStorage } from "./S3Storage.js"
import { defaultFetchLimits, diskStaging, type FetchLimits } from "./Staging.js"

export interface MediaConfig {
  /** Where media bytes live on disk (default <data dir>/media); null for none. */
  readonly localDir: string | null
  /** An S3-compatible bucket; when set, media bytes live there and tickets carry a presigned form. */
  readonly bucket: BucketConfig | null
  /** Where incoming files wait while they are checked (default <localDir>/.staging, else the OS temp dir). */
  readonly stagingDir?: string
  /** The ffprobe command (default `ffprobe` on the PATH, else the one bundled with Herald: see resolveFfprobe). */
  readonly ffprobe?: string
  /** The ffmpeg command that takes video frames (thumbnails; default `ffmpeg` on the PATH). */
  readonly ffmpeg?: string
  readonly fetch?: FetchLimits
}

/**
 * Media: staging, storage (bucket, else local directory, else none: uploads answer 503), the
 * ffprobe-backed probe, ffmpeg's video frames and MediaIngest for bulk media_urls. Building it fails with FfprobeMissing
 * when ffprobe cannot run. Needs OutboundGuard (from @herald/outbound), MediaAdmin and
 * IdGenerator; PeopleTagCheck is the app's to provide (PeopleTagCheck.notConfigured by default).
 */
export const MediaLive = (config: MediaConfig) => {
  const stagingDir = config.stagingDir ??
    (config.localDir === null ? Path.join(Os.tmpdir(), "herald-media-staging") : Path.join(config.localDir, ".staging"))
  const staging = diskStaging(stagingDir, config.fetch ?? defaultFetchLimits)
  const storage = config.bucket !== null
    ? s3MediaStorage(config.bucket).pipe(Layer.provide(staging))
    : config.localDir !== null
    ? localMediaStorage(config.localDir)
    : MediaStorage.unconfigured
  const services = Layer.mergeAll(staging, storage, ffprobeMediaProbe(config.ffprobe), ffmpegVideoFrames(config.ffmpeg))
  return MediaIngestLive.pipe(Layer.provideMerge(services))
}
