/**
 * What the Facebook tests run on: the fake on loopback, the route built against it through the
 * production HTTP client over the outbound guard, Pages connected through Herald's connection
 * flow on the fake's login dialog (tokens kept by Herald's AccountTokens) over the in-memory
 * stores, and media bytes in a stand-in MediaStorage (Facebook takes the bytes).
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
import { Duration, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { facebookRoute } from "../../src/facebook/FacebookRoute.js"
import { CallDeadlines, PlatformHttpLive } from "../../src/kit/index.js"
import { graphVersions } from "../../src/meta/GraphVersions.js"
import { FacebookFake, type FacebookFakeOptions } from "./FacebookFake.js"

const clientId = "987654321012345"
const clientSecret = "fake-facebook-app-secret"

/** Media items as the Threads tests make them: a fresh storage key each, bytes given by withBytes. */
export { mediaItem } from "../threads/harness.js"

export const shortDeadlines = { read: Duration.seconds(2), publish: Duration.seconds(2), upload: Duration.seconds(2) }

export const makeHarness = async (fakeOptions: Partial<FacebookFakeOptions> = {}) => {
  const fake = await new FacebookFake({ clientId, clientSecret, version: graphVersions.facebook, chunkBytes: 1000, ...fakeOptions }).start()
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
    platform: "facebook" as const,
    apiBaseUrl: fake.url,
    authBaseUrl: fake.url,
    clientId: Option.some(clientId),
    clientSecret: Option.some(Redacted.make(clientSecret))
  }
  const runtime = ManagedRuntime.make(layer)
  const route = await runtime.runPromise(facebookRoute(endpoints).pipe(Effect.provideService(CallDeadlines, shortDeadlines)))
  built.provider = route.oauth
  const connections = OAuthProviders.layer({ oauth: [route.oauth], logins: [], unconfigured: [] })
  const project = await runtime.runPromise(createProject({ name: "Facebook tests", timezone: "UTC", approval: "autopilot", signature: "", plan: "active" }))

  /** Herald's connection flow: started, the dialog approved on the fake, its answer completed; answers every account the project holds on Facebook. */
  const connect = async (): Promise<ReadonlyArray<SocialAccount>> => {
    const started = await runtime.runPromise(
      Effect.provide(startConnection(project.id, "facebook", { caller: "test", publicUrl: "https://herald.example" }), connections)
    )
    const callback = await fake.login.consent(started.authorizeUrl)
    await runtime.runPromise(Effect.provide(
      completeConnection("facebook", {
        state: callback.searchParams.get("state") ?? "",
        code: Option.fromNullable(callback.searchParams.get("code")),
        denied: Option.fromNullable(callback.searchParams.get("error"))
      }),
      connections
    ))
    return [...data.accounts.values()].filter((account) => account.platform === "facebook")
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
