import { type MediaConfig, MediaLive } from "@herald/media"
import { Config, Effect, Layer, Option } from "effect"
import { optional } from "./Config.js"

/**
 * HERALD_MEDIA_DIR (the root that keys media/<project>/<id> live under; default the data directory,
 * "off" for none), HERALD_S3_BUCKET with
 * HERALD_S3_REGION (default us-east-1), HERALD_S3_ENDPOINT, HERALD_S3_FORCE_PATH_STYLE,
 * HERALD_S3_ACCESS_KEY_ID and HERALD_S3_SECRET_ACCESS_KEY, HERALD_FFPROBE (unset: ffprobe on the
 * PATH, else the bundled one), HERALD_FFMPEG (unset: ffmpeg on the PATH).
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
    ffprobe: optional("HERALD_FFPROBE"),
    ffmpeg: optional("HERALD_FFMPEG")
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
      ...Option.match(env.ffprobe, { onNone: () => ({}), onSome: (ffprobe) => ({ ffprobe }) }),
      ...Option.match(env.ffmpeg, { onNone: () => ({}), onSome: (ffmpeg) => ({ ffmpeg }) })
    }))
  )

/** MediaLive configured from the environment. */
export const mediaFromEnv = (dataDir: string) => Layer.unwrapEffect(Effect.map(mediaConfig(dataDir), MediaLive))
