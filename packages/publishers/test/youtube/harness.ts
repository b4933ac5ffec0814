/**
 * What the YouTube tests run on: the fake on loopback, the route built against it through the
 * production HTTP client over the outbound guard, accounts connected through Herald's connection
 * flow on the fake's consent page (tokens kept and refreshed by Herald's AccountTokens) over the
 * in-memory stores (the quota and the upload checkpoints included), a video made by ffmpeg, and
 * frames from a stand-in that marks which millisecond was asked for (the ffmpeg adapter has its
 * own test in @herald/media).
 */
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import {
  AccountTokens,
  completeConnection,
  createProject,
  FrameUnavailable,
  IdGenerator,
  makeAccountTokens,
  Media,
  MediaId,
  MediaStorage,
  type OAuthProvider,
  OAuthProviders,
  ProjectId,
  type SocialAccount,
  startConnection,
  VideoFrames
} from "@herald/core"
import { InMemoryData, makeInMemoryAdmin, makeInMemoryStores, sequentialSecrets } from "@herald/core/memory"
import { OutboundGuard } from "@herald/outbound"
import { DateTime, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { CallDeadlines, type Deadlines, PlatformHttpLive } from "../../src/kit/index.js"
import { shortDeadlines } from "../kit/Deadlines.js"
import { chunkUnit } from "../../src/youtube/ResumableUpload.js"
import { youtubeRoute, type YoutubeSettings } from "../../src/youtube/YoutubeRoute.js"
import { YoutubeFake, type YoutubeFakeOptions } from "./YoutubeFake.js"

const clientId = "123456789012-herald.apps.googleusercontent.com"
const clientSecret = "GOCSPX-fake-youtube-secret"

/** A vertical clip of one second (a Short), about 640 KB: three chunks of 256 KiB. */
export const makeVideo = (): Uint8Array => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-youtube-"))
  const file = Path.join(dir, "clip.mp4")
  execFileSync("ffmpeg", [
    "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=1:size=360x640:rate=10,noise=alls=60:allf=t",
    "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "26", "-movflags", "+faststart", file
  ])
  const bytes = new Uint8Array(Fs.readFileSync(file))
  Fs.rmSync(dir, { recursive: true, force: true })
  return bytes
}

export const videoItem = (bytes: Uint8Array, options: { readonly thumbnailTimestampMs?: number; readonly landscape?: boolean; readonly seconds?: number } = {}) =>
  new Media({
    id: MediaId.make(randomUUID()),
    projectId: ProjectId.make(randomUUID()),
    kind: "video",
    mime: "video/mp4",
    bytes: bytes.byteLength,
    filename: null,
    width: options.landscape === true ? 640 : 360,
    height: options.landscape === true ? 360 : 640,
    durationSeconds: options.seconds ?? 1,
    codec: "h264",
    altText: null,
    peopleTags: [],
    thumbnailTimestampMs: options.thumbnailTimestampMs ?? null,
    storageKey: randomUUID(),
    createdAt: DateTime.unsafeMake("2026-11-24T08:00:00Z")
  })

/** A JPEG's first bytes, then the millisecond asked for: what the fake stores as the thumbnail shows which frame it was. */
export const markedFrame = (atMs: number) => new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...new TextEncoder().encode(`frame@${atMs}`)])

export const testSettings = (fake: YoutubeFake, overrides: Partial<YoutubeSettings["quota"]> = {}): YoutubeSettings => ({
  tokenUrl: `${fake.url}/token`,
  analyticsBaseUrl: fake.url,
  chunkBytes: chunkUnit,
  quota: { project: "herald-tests", dailyUnits: 10_000, uploadUnits: 1_600, ...overrides }
})

export const makeHarness = async (
  options: { readonly fake?: Partial<YoutubeFakeOptions>; readonly quota?: Partial<YoutubeSettings["quota"]>; readonly deadlines?: Deadlines } = {}
) => {
  const fake = await new YoutubeFake({ clientId, clientSecret, ...options.fake }).start()
  const data = new InMemoryData()
  const bytes = new Map<string, Uint8Array>()
  const noStorage = await Effect.runPromise(Effect.provide(MediaStorage, MediaStorage.unconfigured))
  const stores = Layer.mergeAll(
    makeInMemoryStores(data),
    makeInMemoryAdmin(data),
    sequentialSecrets(),
    Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) }))
  )
  const built: { provider?: OAuthProvider } = {}
  const tokens = Layer.effect(AccountTokens, makeAccountTokens(() => Effect.sync(() => built.provider?.refresh))).pipe(Layer.provide(stores))
  const frames = { unavailable: false }
  const layer = Layer.mergeAll(
    PlatformHttpLive.pipe(Layer.provide(Layer.orDie(OutboundGuard.layer({ loopbackPorts: [Number(new URL(fake.url).port)] })))),
    tokens,
    stores,
    Layer.succeed(MediaStorage, { ...noStorage, read: (key: string) => Effect.succeed(Option.fromNullable(bytes.get(key))) }),
    Layer.succeed(VideoFrames, VideoFrames.of({
      frameAt: (_video, atMs) =>
        frames.unavailable ? Effect.fail(new FrameUnavailable({ reason: "no ffmpeg here" })) : Effect.succeed(markedFrame(atMs))
    }))
  )
  const endpoints = {
    platform: "youtube" as const,
    apiBaseUrl: fake.url,
    authBaseUrl: fake.url,
    clientId: Option.some(clientId),
    clientSecret: Option.some(Redacted.make(clientSecret))
  }
  const runtime = ManagedRuntime.make(layer)
  /**
   * The route built under these deadlines, over the harness's stores and accounts; tokens are
   * refreshed through the first one's provider.
   */
  const routeWithin = (deadlines: Deadlines) =>
    runtime.runPromise(youtubeRoute(endpoints, testSettings(fake, options.quota)).pipe(Effect.provideService(CallDeadlines, deadlines)))
  const route = await routeWithin(options.deadlines ?? shortDeadlines)
  built.provider = route.oauth
  const connections = OAuthProviders.layer({ oauth: [route.oauth], logins: [], unconfigured: [] })
  const project = await runtime.runPromise(createProject({ name: "YouTube tests", timezone: "UTC", approval: "autopilot", signature: "", plan: "active" }))

  /** Herald's connection flow: started, the consent URL approved on the fake, its answer completed. */
  const connect = async (): Promise<SocialAccount> => {
    const started = await runtime.runPromise(
      Effect.provide(startConnection(project.id, "youtube", { caller: "test", publicUrl: "https://herald.example" }), connections)
    )
    const callback = await fake.consent(started.authorizeUrl)
    return runtime.runPromise(Effect.provide(
      completeConnection("youtube", {
        state: callback.searchParams.get("state") ?? "",
        code: Option.fromNullable(callback.searchParams.get("code")),
        denied: Option.fromNullable(callback.searchParams.get("error"))
      }),
      connections
    ))
  }

  const withBytes = (media: Media, content: Uint8Array) => {
    bytes.set(media.storageKey, content)
    return media
  }

  const stop = async () => {
    await runtime.dispose()
    await fake.stop()
  }

  return { fake, route, data, runtime, connect, withBytes, routeWithin, frames, stop }
}
