/**
 * What the Instagram tests run on: the fake on loopback, Instagram Login's route built against it
 * through the production HTTP client over the outbound guard, accounts connected through
 * Herald's connection flow on the fake's consent page (tokens kept and refreshed by Herald's
 * AccountTokens) over the in-memory stores, and media served to the fake at public URLs by a
 * small loopback host (Instagram downloads media; it takes no bytes).
 */
import {
  AccountTokens,
  completeConnection,
  createProject,
  IdGenerator,
  makeAccountTokens,
  type Media,
  MediaStorage,
  type OAuthProvider,
  OAuthProviders,
  type SocialAccount,
  startConnection
} from "@herald/core"
import { InMemoryData, makeInMemoryAdmin, makeInMemoryStores, sequentialSecrets } from "@herald/core/memory"
import { OutboundGuard } from "@herald/outbound"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { instagramLoginRoute } from "../../src/instagram/InstagramLoginRoute.js"
import { CallDeadlines, PlatformHttpLive } from "../../src/kit/index.js"
import { shortDeadlines, startMediaHost } from "../threads/harness.js"
import { InstagramFake, type InstagramFakeOptions } from "./InstagramFake.js"

export { mediaItem, shortDeadlines } from "../threads/harness.js"

const clientId = "9876543210987654"
const clientSecret = "fake-instagram-app-secret"

/** A JPEG's first bytes: Instagram takes JPEG images only. */
export const jpeg = new Uint8Array([255, 216, 255, 224, 0, 16, 74, 70, 73, 70])
export const mp4 = Uint8Array.from({ length: 2500 }, (_, i) => i % 251)

export const makeHarness = async (fakeOptions: Partial<InstagramFakeOptions> = {}, deadlines: typeof shortDeadlines = shortDeadlines) => {
  const fake = await new InstagramFake({ clientId, clientSecret, ...fakeOptions }).start()
  const data = new InMemoryData()
  const bytes = new Map<string, Uint8Array>()
  const host = await startMediaHost(bytes)
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
      // What a bucket's presigned GET is in production: a URL Instagram downloads the bytes from.
      publicUrl: (key: string) => Effect.succeed(bytes.has(key) ? Option.some(`${host.url}/media/${key}`) : Option.none())
    })
  )
  const endpoints = {
    platform: "instagram" as const,
    apiBaseUrl: fake.url,
    authBaseUrl: fake.url,
    clientId: Option.some(clientId),
    clientSecret: Option.some(Redacted.make(clientSecret))
  }
  const runtime = ManagedRuntime.make(layer)
  const route = await runtime.runPromise(instagramLoginRoute(endpoints).pipe(Effect.provideService(CallDeadlines, deadlines)))
  built.provider = route.oauth
  const connections = OAuthProviders.layer({ oauth: [route.oauth], logins: [], unconfigured: [] })
  const project = await runtime.runPromise(createProject({ name: "Instagram tests", timezone: "UTC", approval: "autopilot", signature: "", plan: "active" }))

  /** Herald's connection flow: started, the consent URL approved on the fake, its answer completed. */
  const connect = async (): Promise<SocialAccount> => {
    const started = await runtime.runPromise(
      Effect.provide(startConnection(project.id, "instagram", { caller: "test", publicUrl: "https://herald.example" }), connections)
    )
    const callback = await fake.consent(started.authorizeUrl)
    return runtime.runPromise(Effect.provide(
      completeConnection("instagram", {
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

  /** The public URL the storage hands out for a stored item. */
  const publicUrlOf = (media: Media) => `${host.url}/media/${media.storageKey}`

  return { fake, route, data, runtime, connect, withBytes, publicUrlOf, stop }
}
