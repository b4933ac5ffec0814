import {
  AccountTokens,
  completeConnection,
  createProject,
  type Credentials,
  makeAccountTokens,
  Media,
  MediaId,
  MediaStorage,
  type OAuthProvider,
  OAuthProviders,
  type ProjectId,
  type RouteAdapters,
  SocialAccount,
  startConnection
} from "@herald/core"
import { InMemoryData, makeInMemoryAdmin, makeInMemoryStores, sequentialIds } from "@herald/core/memory"
import { pkceSecrets } from "../kit/PkceSecrets.js"
import { OutboundGuard } from "@herald/outbound"
import { DateTime, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { randomUUID } from "node:crypto"
import { CallDeadlines, type Deadlines, PlatformHttpLive } from "../../src/kit/index.js"
import { xRoute } from "../../src/x/index.js"
import { shortDeadlines } from "../kit/Deadlines.js"
import { startXFake, type XFake, type XFakeOptions } from "./XFake.js"

/**
 * Herald's X route against the fake, over the production HttpClient and the outbound guard (its
 * test-only loopback allowance for the fake's port), with the kit's account connection
 * (startConnection, then the consent URL followed on the fake back to the callback's
 * completeConnection) and its AccountTokens (refresh through the route's provider, needs_reconnect
 * on a refused refresh) over the in-memory stores, under the kit's short deadlines. No test writes
 * tokens by hand.
 */
export interface XHarness {
  readonly fake: XFake
  readonly adapters: RouteAdapters
  readonly oauth: OAuthProvider
  /** The route built again under these deadlines, over the same fake, stores and accounts. */
  readonly routeWithin: (deadlines: Deadlines) => Promise<{ readonly adapters: RouteAdapters; readonly oauth: OAuthProvider }>
  /** Starts a connection, follows the consent URL on the fake to Herald's callback: the account connected (or reconnected). */
  readonly connect: () => Promise<SocialAccount>
  readonly credentials: (account: SocialAccount) => Credentials | undefined
  readonly status: (account: SocialAccount) => SocialAccount["status"] | undefined
  /** The account as storage holds it now. */
  readonly reload: (account: SocialAccount) => SocialAccount
  readonly storeMedia: (media: { kind: "image" | "video"; mime: string; bytes: Uint8Array; altText?: string | null }) => Media
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly close: () => Promise<void>
}

export const startXHarness = async (options: XFakeOptions = {}): Promise<XHarness> => {
  const fake = await startXFake(options)
  const port = Number(new URL(fake.url).port)
  const data = new InMemoryData()
  const files = new Map<string, Uint8Array>()
  // AccountTokens refreshes through the route's provider, and the route reads tokens from AccountTokens.
  const provider: { oauth?: OAuthProvider } = {}
  const stores = Layer.mergeAll(makeInMemoryStores(data), makeInMemoryAdmin(data), sequentialIds(), pkceSecrets)

  const storage = MediaStorage.of({
    ...Effect.runSync(Effect.provide(MediaStorage, MediaStorage.unconfigured)),
    // Only reading is a publisher's business.
    read: (key) => Effect.sync(() => Option.fromNullable(files.get(key)))
  })

  const tokens = Layer.effect(AccountTokens, makeAccountTokens(() => Effect.sync(() => provider.oauth?.refresh)))
  const layer = Layer.mergeAll(
    PlatformHttpLive.pipe(Layer.provide(OutboundGuard.layer({ loopbackPorts: [port] }))),
    Layer.succeed(MediaStorage, storage),
    tokens
  ).pipe(Layer.provideMerge(stores))
  const endpoints = {
    platform: "x" as const,
    apiBaseUrl: fake.url,
    authBaseUrl: fake.url,
    clientId: Option.some(fake.clientId),
    clientSecret: fake.clientSecret === null ? Option.none() : Option.some(Redacted.make(fake.clientSecret))
  }
  const { runtime, dispose } = await Effect.runPromise(Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(layer, scope)
    return { runtime: context, dispose: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
  }))
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
  const routeWithin = (deadlines: Deadlines) =>
    run(xRoute(endpoints).pipe(Effect.provide(runtime), Effect.provideService(CallDeadlines, deadlines)))
  const route = await routeWithin(shortDeadlines)
  provider.oauth = route.oauth
  const inHerald = <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<typeof stores> | OAuthProviders>) =>
    run(effect.pipe(Effect.provide(runtime), Effect.provideService(OAuthProviders, OAuthProviders.make({ oauth: [route.oauth], logins: [], unconfigured: [] }))))
  const project = await inHerald(createProject({ name: "Acme", timezone: "UTC", approval: "autopilot", signature: "", plan: "active" }))

  const connect = async () => {
    const started = await inHerald(startConnection(project.id as ProjectId, "x", { caller: "test", publicUrl: "http://127.0.0.1:9" }))
    // The consent page (the fake consents at once) sends the browser back to Herald's callback.
    const consent = await fetch(started.authorizeUrl, { redirect: "manual" })
    const callback = new URL(consent.headers.get("location") ?? "")
    if (!callback.href.startsWith(started.redirectUri)) throw new Error(`the consent page sent the browser to ${callback.href}`)
    return inHerald(completeConnection("x", {
      state: callback.searchParams.get("state") ?? "",
      code: Option.fromNullable(callback.searchParams.get("code")),
      denied: Option.fromNullable(callback.searchParams.get("error"))
    }))
  }

  return {
    fake,
    adapters: route.adapters,
    oauth: route.oauth,
    routeWithin,
    connect,
    credentials: (account) => data.credentials.get(account.id),
    status: (account) => data.accounts.get(account.id)?.status,
    reload: (account) => data.accounts.get(account.id) ?? account,
    storeMedia: ({ altText = null, bytes, kind, mime }) => {
      const storageKey = `media/${randomUUID()}`
      files.set(storageKey, bytes)
      return new Media({
        id: MediaId.make(randomUUID()),
        projectId: project.id,
        kind,
        mime,
        bytes: bytes.byteLength,
        filename: `${kind}.${mime.split("/")[1]}`,
        width: 640,
        height: 480,
        durationSeconds: kind === "video" ? 3 : null,
        codec: kind === "video" ? "h264" : "mjpeg",
        altText,
        peopleTags: [],
        thumbnailTimestampMs: null,
        storageKey,
        createdAt: DateTime.unsafeMake("2030-01-01T00:00:00Z")
      })
    },
    run,
    close: async () => {
      await dispose()
      await fake.close()
    }
  }
}
