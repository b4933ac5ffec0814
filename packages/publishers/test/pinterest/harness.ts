/**
 * What the Pinterest tests run on: the fake on loopback, the route built against it through the
 * production HTTP client over the outbound guard, accounts connected through Herald's connection
 * flow on the fake's consent page (tokens kept and refreshed by Herald's AccountTokens) over the
 * in-memory stores, and stored media bytes (Pinterest takes image bytes and video uploads).
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
import { CallDeadlines, PlatformHttpLive } from "../../src/kit/index.js"
import { pinterestRoute } from "../../src/pinterest/PinterestRoute.js"
import { PinterestFake, type PinterestFakeOptions } from "./PinterestFake.js"

const clientId = "1484362"
const clientSecret = "fake-pinterest-app-secret"

export const mediaItem = (kind: "image" | "video", options: { altText?: string; mime?: string; thumbnailTimestampMs?: number } = {}) =>
  new Media({
    id: MediaId.make(randomUUID()),
    projectId: ProjectId.make(randomUUID()),
    kind,
    mime: options.mime ?? (kind === "image" ? "image/jpeg" : "video/mp4"),
    bytes: 0,
    filename: null,
    width: 1000,
    height: 1500,
    durationSeconds: kind === "video" ? 8 : null,
    codec: kind === "image" ? "mjpeg" : "h264",
    altText: options.altText ?? null,
    peopleTags: [],
    thumbnailTimestampMs: options.thumbnailTimestampMs ?? null,
    storageKey: randomUUID(),
    createdAt: DateTime.unsafeMake("2026-11-24T08:00:00Z")
  })

export const shortDeadlines = { read: Duration.seconds(2), publish: Duration.seconds(2), upload: Duration.seconds(2) }

export const makeHarness = async (fakeOptions: Partial<PinterestFakeOptions> = {}, deadlines: typeof shortDeadlines = shortDeadlines) => {
  const fake = await new PinterestFake({ clientId, clientSecret, ...fakeOptions }).start()
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
  const layer = Layer.mergeAll(
    PlatformHttpLive.pipe(Layer.provide(Layer.orDie(OutboundGuard.layer({ loopbackPorts: [Number(new URL(fake.url).port)] })))),
    tokens,
    stores,
    Layer.succeed(MediaStorage, { ...noStorage, read: (key: string) => Effect.succeed(Option.fromNullable(bytes.get(key))) })
  )
  const endpoints = {
    platform: "pinterest" as const,
    apiBaseUrl: fake.url,
    authBaseUrl: fake.url,
    clientId: Option.some(clientId),
    clientSecret: Option.some(Redacted.make(clientSecret))
  }
  const runtime = ManagedRuntime.make(layer)
  const route = await runtime.runPromise(pinterestRoute(endpoints).pipe(Effect.provideService(CallDeadlines, deadlines)))
  built.provider = route.oauth
  const connections = OAuthProviders.layer({ oauth: [route.oauth], logins: [], unconfigured: [] })
  const project = await runtime.runPromise(createProject({ name: "Pinterest tests", timezone: "UTC", approval: "autopilot", signature: "", plan: "active" }))

  /** Herald's connection flow: started, the consent URL approved on the fake, its answer completed. */
  const connect = async (): Promise<SocialAccount> => {
    const started = await runtime.runPromise(
      Effect.provide(startConnection(project.id, "pinterest", { caller: "test", publicUrl: "https://herald.example" }), connections)
    )
    const callback = await fake.consent(started.authorizeUrl)
    return runtime.runPromise(Effect.provide(
      completeConnection("pinterest", {
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

  return { fake, route, data, runtime, connect, withBytes, stop }
}

export const jpegBytes = new Uint8Array([255, 216, 255, 224, 0, 16, 74, 70, 73, 70])
export const videoBytes = Uint8Array.from({ length: 2500 }, (_, i) => i % 251)
