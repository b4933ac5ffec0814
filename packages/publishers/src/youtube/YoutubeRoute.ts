/** YouTube's direct route: its adapters and its OAuth provider, over Google's hosts. */
import type { RouteAdapters } from "@herald/core"
import { youtubeQuota } from "@herald/core"
import { Config, ConfigError, Effect, Either, Option } from "effect"
import { type DirectRoute, platformClient, type PlatformEndpoints } from "../kit/index.js"
import type { QuotaSettings } from "./Quota.js"
import { validChunkBytes } from "./ResumableUpload.js"
import { youtubeMetrics } from "./YoutubeMetrics.js"
import { youtubeOAuth } from "./YoutubeOAuth.js"
import { youtubeProbe } from "./YoutubeProbe.js"
import { youtubePublisher } from "./YoutubePublisher.js"
import type { Needs } from "./YoutubeToken.js"

/** Google's real hosts: the Data API (uploads too, under /upload), and the consent page. */
export const youtubeHosts = { apiBaseUrl: "https://www.googleapis.com", authBaseUrl: "https://accounts.google.com" } as const

/** YouTube's settings beyond its endpoints (docs/networks/youtube.md). */
export interface YoutubeSettings {
  /** HERALD_YOUTUBE_TOKEN_URL: Google's token endpoint. */
  readonly tokenUrl: string
  /** HERALD_YOUTUBE_ANALYTICS_URL: the YouTube Analytics API's host. */
  readonly analyticsBaseUrl: string
  /** HERALD_YOUTUBE_UPLOAD_CHUNK_BYTES: bytes per upload request, a multiple of 256 KiB (default 8 MiB). */
  readonly chunkBytes: number
  readonly quota: QuotaSettings
}

const url = (name: string, fallback: string) =>
  Config.withDefault(Config.string(name), fallback).pipe(
    Config.mapOrFail((text) =>
      URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)
        ? Either.right(text.replace(/\/+$/, ""))
        : Either.left(ConfigError.InvalidData([name], `${name} must be an absolute http(s) URL, got ${JSON.stringify(text)}`))
    )
  )

const positive = (name: string, fallback: number) =>
  Config.withDefault(Config.integer(name), fallback).pipe(
    Config.validate({ message: `${name} must be a positive whole number`, validation: (value) => value > 0 })
  )

export const youtubeSettings = (endpoints: PlatformEndpoints): Config.Config<YoutubeSettings> =>
  Config.all({
    tokenUrl: url("HERALD_YOUTUBE_TOKEN_URL", "https://oauth2.googleapis.com/token"),
    analyticsBaseUrl: url("HERALD_YOUTUBE_ANALYTICS_URL", "https://youtubeanalytics.googleapis.com"),
    chunkBytes: Config.withDefault(Config.integer("HERALD_YOUTUBE_UPLOAD_CHUNK_BYTES"), 8 * 1024 * 1024).pipe(
      Config.validate({ message: "HERALD_YOUTUBE_UPLOAD_CHUNK_BYTES must be a positive multiple of 262144 (256 KiB)", validation: validChunkBytes })
    ),
    project: Config.option(Config.string("HERALD_YOUTUBE_QUOTA_PROJECT")),
    dailyUnits: positive("HERALD_YOUTUBE_QUOTA_DAILY_UNITS", youtubeQuota.dailyUnits),
    uploadUnits: positive("HERALD_YOUTUBE_QUOTA_UPLOAD_UNITS", youtubeQuota.upload)
  }).pipe(Config.map(({ dailyUnits, project, uploadUnits, ...rest }) => ({
    ...rest,
    quota: {
      // A Google Cloud project holds the OAuth client: its id names the quota unless told otherwise.
      project: Option.getOrElse(Option.orElse(project, () => endpoints.clientId), () => "unconfigured"),
      dailyUnits,
      uploadUnits
    }
  })))

export const youtubeRoute = (endpoints: PlatformEndpoints, settings: YoutubeSettings) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<Needs>()
    const api = yield* platformClient(endpoints.apiBaseUrl)
    const analytics = yield* platformClient(settings.analyticsBaseUrl)
    const adapters: RouteAdapters = {
      platform: "youtube",
      route: "direct",
      publisher: youtubePublisher(api, { apiBaseUrl: endpoints.apiBaseUrl, chunkBytes: settings.chunkBytes, quota: settings.quota }, context),
      metrics: youtubeMetrics({ api, analytics }, settings.quota, context),
      probe: youtubeProbe(api, settings.quota, context)
    }
    return { adapters, oauth: yield* youtubeOAuth(endpoints, settings, api, context) }
  })

/** YouTube's entry in the app's direct routes (app/src/DirectRoutes.ts). */
export const youtubeDirectRoute: DirectRoute = {
  platform: "youtube",
  defaults: youtubeHosts,
  build: (endpoints) => Effect.flatMap(youtubeSettings(endpoints), (settings) => youtubeRoute(endpoints, settings))
}
