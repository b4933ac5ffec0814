/**
 * What the TikTok tests run on: the fake on loopback, the route built against it through the
 * production HTTP client over the outbound guard, accounts connected through Herald's connection
 * flow on the fake's consent page (tokens kept and refreshed by Herald's AccountTokens) over the
 * in-memory stores, and media served at public URLs by a small loopback host whose prefix the
 * fake counts as verified (TikTok pulls photos, and videos sent by PULL_FROM_URL).
 */
import {
  AccountTokens,
  completeConnection,
  createProject,
  IdGenerator,
  makeAccountTokens,
  Media,
  MediaId,
  MediaStorage,
  type OAuthProvider,
  OAuthProviders,
  ProjectId,
  type SocialAccount,
  startConnection
} from "@herald/core"
import { InMemoryData, makeInMemoryAdmin, makeInMemoryStores, sequentialSecrets } from "@herald/core/memory"
import { OutboundGuard } from "@herald/outbound"
import { DateTime, Duration, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { CallDeadlines, PlatformHttpLive } from "../../src/kit/index.js"
import type { TiktokSettings } from "../../src/tiktok/TiktokPublisher.js"
import { tiktokRoute } from "../../src/tiktok/TiktokRoute.js"
import { TiktokFake, type TiktokFakeOptions } from "./TiktokFake.js"

const clientKey = "awfaketiktokclientkey"
const clientSecret = "fake-tiktok-client-secret"

export const mediaItem = (kind: "image" | "video", options: { durationSeconds?: number; thumbnailTimestampMs?: number } = {}) =>
  new Media({
    id: MediaId.make(randomUUID()),
    projectId: ProjectId.make(randomUUID()),
    kind,
    mime: kind === "image" ? "image/jpeg" : "video/mp4",
    bytes: 0,
    filename: null,
    width: 1080,
    height: 1920,
    durationSeconds: kind === "video" ? options.durationSeconds ?? 5 : null,
    codec: kind === "image" ? "mjpeg" : "h264",
    altText: null,
    peopleTags: [],
    thumbnailTimestampMs: options.thumbnailTimestampMs ?? null,
    storageKey: randomUUID(),
    createdAt: DateTime.unsafeMake("2026-11-24T08:00:00Z")
  })

export const shortDeadlines = { read: Duration.seconds(2), publish: Duration.seconds(2), upload: Duration.seconds(5) }

/** A loopback host serving stored bytes at /media/<storage key>, standing in for a public media URL. */
const startMediaHost = async (bytes: Map<string, Uint8Array>) => {
  const server = createServer((req, res) => {
    const found = bytes.get(decodeURIComponent((req.url ?? "").replace(/^\/media\//, "")))
    if (found === undefined) {
      res.writeHead(404)
      return res.end()
    }
    res.writeHead(200, { "content-type": "application/octet-stream" })
    return res.end(Buffer.from(found))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

export interface HarnessOptions {
  readonly fake?: Partial<TiktokFakeOptions>
  readonly settings?: Partial<TiktokSettings>
  readonly deadlines?: typeof shortDeadlines
}

export const makeHarness = async (options: HarnessOptions = {}) => {
  const bytes = new Map<string, Uint8Array>()
  const host = await startMediaHost(bytes)
  const settings: TiktokSettings = { audited: true, videoTransfer: "file_upload", ...options.settings }
  const fake = await new TiktokFake({ clientKey, clientSecret, audited: settings.audited, verifiedUrlPrefixes: [`${host.url}/media/`], ...options.fake }).start()
  const data = new InMemoryData()
  const noStorage = await Effect.runPromise(Effect.provide(MediaStorage, MediaStorage.unconfigured))
  const stores = Layer.mergeAll(
    makeInMemoryStores(data),
    makeInMemoryAdmin(data),
    sequentialSecrets(),
    Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) }))
  )
  const built: { provider?: OAuthProvider } = {}
  const tokens = Layer.effect(AccountTokens, makeAccountTokens(() => Effect.sync(() => built.provider?.refresh))).pipe(Layer.provide(stores))
  const layer = Layer.mergeAll(
    PlatformHttpLive.pipe(Layer.provide(Layer.orDie(OutboundGuard.layer({ loopbackPorts: [Number(new URL(fake.url).port)] })))),
    tokens,
    stores,
    Layer.succeed(MediaStorage, {
      ...noStorage,
      read: (key: string) => Effect.succeed(Option.fromNullable(bytes.get(key))),
      // What a bucket's presigned GET is in production: a URL TikTok downloads the bytes from.
      publicUrl: (key: string) => Effect.succeed(bytes.has(key) ? Option.some(`${host.url}/media/${key}`) : Option.none())
    })
  )
  const endpoints = {
    platform: "tiktok" as const,
    apiBaseUrl: fake.url,
    authBaseUrl: fake.url,
    clientId: Option.some(clientKey),
    clientSecret: Option.some(Redacted.make(clientSecret))
  }
  const runtime = ManagedRuntime.make(layer)
  const route = await runtime.runPromise(
    tiktokRoute(endpoints, settings).pipe(Effect.provideService(CallDeadlines, options.deadlines ?? shortDeadlines))
  )
  built.provider = route.oauth
  const connections = OAuthProviders.layer({ oauth: [route.oauth], logins: [], unconfigured: [] })
  const project = await runtime.runPromise(createProject({ name: "TikTok tests", timezone: "UTC", approval: "autopilot", signature: "", plan: "active" }))

  /** Herald's connection flow: started, the consent URL approved on the fake, its answer completed. */
  const connect = async (): Promise<SocialAccount> => {
    const started = await runtime.runPromise(
      Effect.provide(startConnection(project.id, "tiktok", { caller: "test", publicUrl: "https://herald.example" }), connections)
    )
    const callback = await fake.consent(started.authorizeUrl)
    return runtime.runPromise(Effect.provide(
      completeConnection("tiktok", {
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
    await host.stop()
    await fake.stop()
  }

  return { fake, route, data, runtime, connect, withBytes, stop }
}

/** A small video's bytes (the fake takes any bytes; TikTok would inspect them). */
export const videoBytes = (length = 2500) => Uint8Array.from({ length }, (_, i) => i % 251)
