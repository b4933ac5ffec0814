/**
 * What a direct route's tests run on: the platform's fake on loopback, the route built against it
 * through the production HTTP client over the outbound guard (allowed to reach the fake's port
 * only), accounts connected through Herald's connection flow on the fake's consent page, their
 * tokens kept and refreshed by Herald's AccountTokens over the in-memory stores, and media bytes
 * held in memory.
 */
import {
  AccountTokens,
  completeConnection,
  createProject,
  IdGenerator,
  makeAccountTokens,
  MediaStorage,
  type Media,
  type OAuthProvider,
  OAuthProviders,
  type Platform,
  type SocialAccount,
  startConnection,
  type VideoFrames
} from "@herald/core"
import { InMemoryData, makeInMemoryAdmin, makeInMemoryStores, sequentialSecrets } from "@herald/core/memory"
import { OutboundGuard } from "@herald/outbound"
import { type Effect as Fx, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { CallDeadlines, type Deadlines, type DirectRoute, PlatformHttpLive, type PlatformEndpoints } from "../../src/kit/index.js"

/** What a direct route is built on (kit/DirectRoute.ts) that the harness provides: all but video frames (YouTube's thumbnails). */
type RouteNeeds = Exclude<Fx.Effect.Context<ReturnType<DirectRoute["build"]>>, VideoFrames>

/** The fake of a platform as the harness drives it. */
export interface ConsentingFake {
  readonly url: string
  /** Follows a consent URL as the user would, approving it; answers where the platform redirects. */
  readonly consent: (authorizeUrl: string) => Promise<URL>
}

const harnessLayer = (fake: ConsentingFake, data: InMemoryData, bytes: Map<string, Uint8Array>, provider: () => OAuthProvider | undefined, publicUrl?: (key: string) => string) =>
  Effect.map(Effect.provide(MediaStorage, MediaStorage.unconfigured), (noStorage) => {
    const stores = Layer.mergeAll(
      makeInMemoryStores(data),
      makeInMemoryAdmin(data),
      sequentialSecrets(),
      Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) }))
    )
    // AccountTokens refreshes through the provider the route builds, and the route reads tokens from it.
    const tokens = Layer.effect(AccountTokens, makeAccountTokens(() => Effect.sync(() => provider()?.refresh))).pipe(Layer.provide(stores))
    return Layer.mergeAll(
      PlatformHttpLive.pipe(Layer.provide(Layer.orDie(OutboundGuard.layer({ loopbackPorts: [Number(new URL(fake.url).port)] })))),
      tokens,
      stores,
      Layer.succeed(MediaStorage, {
        ...noStorage,
        read: (key: string) => Effect.succeed(Option.fromNullable(bytes.get(key))),
        // What a bucket's presigned GET is in production: a URL the platform downloads the bytes from.
        ...(publicUrl === undefined ? {} : { publicUrl: (key: string) => Effect.succeed(bytes.has(key) ? Option.some(publicUrl(key)) : Option.none()) })
      })
    )
  })

export const directHarness = async <Route extends { readonly oauth: OAuthProvider }>(options: {
  readonly platform: Platform
  readonly fake: ConsentingFake
  readonly client: { readonly id: string; readonly secret: string }
  readonly build: (endpoints: PlatformEndpoints) => Fx.Effect<Route, never, RouteNeeds>
  readonly deadlines: Deadlines
  /** Where the platform downloads a stored item from, for platforms that take URLs (none: no public URLs). */
  readonly publicUrl?: (key: string) => string
  /** Where the stored media's bytes are held (a test's own map, when something else serves them too). */
  readonly bytes?: Map<string, Uint8Array>
}) => {
  const { fake, platform } = options
  const data = new InMemoryData()
  const bytes = options.bytes ?? new Map<string, Uint8Array>()
  const built: { provider?: OAuthProvider } = {}
  const layer = await Effect.runPromise(harnessLayer(fake, data, bytes, () => built.provider, options.publicUrl))
  const endpoints: PlatformEndpoints = {
    platform,
    apiBaseUrl: fake.url,
    authBaseUrl: fake.url,
    clientId: Option.some(options.client.id),
    clientSecret: Option.some(Redacted.make(options.client.secret))
  }
  // The guard's connections live as long as the harness: closed by dispose().
  const runtime = ManagedRuntime.make(layer)
  /**
   * The route built under these deadlines, over the harness's stores and accounts; tokens are
   * refreshed through the first one's provider.
   */
  const routeWithin = (deadlines: Deadlines) => runtime.runPromise(options.build(endpoints).pipe(Effect.provideService(CallDeadlines, deadlines)))
  const route = await routeWithin(options.deadlines)
  built.provider = route.oauth
  const connections = OAuthProviders.layer({ oauth: [route.oauth], logins: [], unconfigured: [] })
  const project = await runtime.runPromise(createProject({ name: `${platform} tests`, timezone: "UTC", approval: "autopilot", signature: "", plan: "active" }))

  /** Herald's connection flow: started, the consent URL approved on the fake, its answer completed. */
  const connect = async (): Promise<SocialAccount> => {
    const started = await runtime.runPromise(
      // On the route the provider connects (Instagram's facebook_login, else direct).
      Effect.provide(startConnection(project.id, platform, { caller: "test", publicUrl: "https://herald.example" }, route.oauth.route), connections)
    )
    const callback = await fake.consent(started.authorizeUrl)
    return runtime.runPromise(Effect.provide(
      completeConnection(platform, {
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

  return { route, data, runtime, bytes, connect, withBytes, routeWithin, dispose: () => runtime.dispose() }
}
