import * as Os from "node:os"
import * as Path from "node:path"
import { MediaIngestLive, MediaStorage } from "@herald/core"
import { Config, Effect, Layer, Option } from "effect"
import { localMediaStorage } from "./LocalStorage.js"
import { ffprobeMediaProbe } from "./Probe.js"
import { type BucketConfig, s3MediaStorage } from "./S3Storage.js"
import { defaultFetchLimits, diskStaging, type FetchLimits } from "./Staging.js"

export { checkFfprobe, FfprobeMissing, acceptedTypes, ffprobeMediaProbe } from "./Probe.js"
export { localMediaStorage } from "./LocalStorage.js"
export { type BucketConfig, s3MediaStorage } from "./S3Storage.js"
export { defaultFetchLimits, diskStaging, type FetchLimits } from "./Staging.js"

export interface MediaConfig {
  /** Where media bytes live on disk (default <data dir>/media); null for none. */
  readonly localDir: string | null
  /** An S3-compatible bucket; when set, media bytes live there and tickets carry a presigned form. */
  readonly bucket: BucketConfig | null
  /** Where incoming files wait while they are checked (default <localDir>/.staging, else the OS temp dir). */
  readonly stagingDir?: string
  /** The ffprobe command (default "ffprobe" on the PATH). */
  readonly ffprobe?: string
  readonly fetch?: FetchLimits
}

/**
 * Media for the app: staging, storage (bucket, else local directory, else none: uploads answer
 * 503), the ffprobe-backed probe and MediaIngest for bulk media_urls. Building it fails with
 * FfprobeMissing when ffprobe cannot run. Needs OutboundGuard (from @herald/webhooks), MediaAdmin
 * and IdGenerator; PeopleTagCheck is the app's to provide (PeopleTagCheck.notConfigured by default).
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
  const services = Layer.mergeAll(staging, storage, ffprobeMediaProbe(config.ffprobe))
  return MediaIngestLive.pipe(Layer.provideMerge(services))
}

/**
 * HERALD_MEDIA_DIR (the root that keys media/<project>/<id> live under; default the data directory,
 * "off" for none), HERALD_S3_BUCKET with
 * HERALD_S3_REGION (default us-east-1), HERALD_S3_ENDPOINT, HERALD_S3_FORCE_PATH_STYLE,
 * HERALD_S3_ACCESS_KEY_ID and HERALD_S3_SECRET_ACCESS_KEY, HERALD_FFPROBE.
 */
export const mediaConfig = (dataDir: string): Config.Config<MediaConfig> =>
  Config.all({
    dir: Config.withDefault(Config.string("HERALD_MEDIA_DIR"), dataDir),
    bucket: Config.option(Config.string("HERALD_S3_BUCKET")),
    region: Config.withDefault(Config.string("HERALD_S3_REGION"), "us-east-1"),
    endpoint: Config.option(Config.string("HERALD_S3_ENDPOINT")),
    forcePathStyle: Config.withDefault(Config.boolean("HERALD_S3_FORCE_PATH_STYLE"), false),
    accessKeyId: Config.option(Config.string("HERALD_S3_ACCESS_KEY_ID")),
    secretAccessKey: Config.option(Config.redacted("HERALD_S3_SECRET_ACCESS_KEY")),
    ffprobe: Config.withDefault(Config.string("HERALD_FFPROBE"), "ffprobe")
  }).pipe(
    Config.map((env): MediaConfig => ({
      localDir: env.dir === "off" ? null : env.dir,
      bucket: Option.match(env.bucket, {
        onNone: () => null,
        onSome: (bucket) => ({
          bucket,
          region: env.region,
          forcePathStyle: env.forcePathStyle,
          ...Option.match(env.endpoint, { onNone: () => ({}), onSome: (endpoint) => ({ endpoint }) }),
          ...Option.match(Option.all([env.accessKeyId, env.secretAccessKey]), {
            onNone: () => ({}),
            onSome: ([accessKeyId, secretAccessKey]) => ({ credentials: { accessKeyId, secretAccessKey } })
          })
        })
      }),
      ffprobe: env.ffprobe
    }))
  )

/** MediaLive configured from the environment. */
export const mediaFromEnv = (dataDir: string) => Layer.unwrapEffect(Effect.map(mediaConfig(dataDir), MediaLive))
