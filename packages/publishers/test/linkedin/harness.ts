/**
 * What the LinkedIn tests run on: the fake on loopback, the route built against it through the
 * production HTTP client over the outbound guard, accounts connected through Herald's connection
 * flow on the fake's consent page and their tokens kept and refreshed by Herald's AccountTokens,
 * over the in-memory stores, and media bytes held in memory.
 */
import {
  AccountTokens,
  completeConnection,
  createProject,
  type Credentials,
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
import { linkedinRoute, type LinkedinOptions } from "../../src/linkedin/LinkedinRoute.js"
import { type FakeOptions, LinkedinFake } from "./LinkedinFake.js"

const clientId = "86fake0client"
const clientSecret = "fake-secret-value"

/** A small PDF the fake takes as one. */
export const pdfBytes = new TextEncoder().encode("%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n")

export const mediaItem = (kind: "image" | "video" | "document", options: { altText?: string; filename?: string } = {}) =>
  new Media({
    id: MediaId.make(randomUUID()),
    projectId: ProjectId.make(randomUUID()),
    kind,
    mime: kind === "image" ? "image/jpeg" : kind === "video" ? "video/mp4" : "application/pdf",
    bytes: 0,
    filename: options.filename ?? null,
    width: kind === "document" ? null : 1080,
    height: kind === "document" ? null : 1080,
    durationSeconds: kind === "video" ? 5 : null,
    codec: kind === "image" ? "mjpeg" : kind === "video" ? "h264" : null,
    altText: options.altText ?? null,
    peopleTags: [],
    thumbnailTimestampMs: null,
    storageKey: randomUUID(),
    createdAt: DateTime.unsafeMake("2026-11-24T08:00:00Z")
  })

/** Deadlines short enough that a reply that never comes fails within a test. */
export const shortDeadlines = { read: Duration.seconds(2), publish: Duration.seconds(2), upload: Duration.seconds(2) }

export const makeHarness = async (fakeOptions: Partial<FakeOptions> = {}, routeOptions: LinkedinOptions = {}) => {
  const fake = await new LinkedinFake({ clientId, clientSecret, ...fakeOptions }).start()
  const data = new InMemoryData()
  const bytes = new Map<string, Uint8Array>()
  const noStorage = await Effect.runPromise(Effect.provide(MediaStorage, MediaStorage.unconfigured))
  const stores = Layer.mergeAll(
    makeInMemoryStores(data),
    makeInMemoryAdmin(data),
    sequentialSecrets(),
    Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) }))
  )
  // AccountTokens refreshes through the provider the route builds, and the route reads tokens from it.
  const built: { provider?: OAuthProvider } = {}
  const tokens = Layer.effect(AccountTokens, makeAccountTokens(() => Effect.sync(() => built.provider?.refresh))).pipe(Layer.provide(stores))
  const layer = Layer.mergeAll(
    // The production client over the outbound guard, allowed to reach the fake's loopback port only.
    PlatformHttpLive.pipe(Layer.provide(Layer.orDie(OutboundGuard.layer({ loopbackPorts: [Number(new URL(fake.url).port)] })))),
    tokens,
    stores,
    Layer.succeed(MediaStorage, { ...noStorage, read: (key: string) => Effect.succeed(Option.fromNullable(bytes.get(key))) })
  )
  const endpoints = {
    platform: "linkedin" as const,
    apiBaseUrl: fake.url,
    authBaseUrl: fake.url,
    clientId: Option.some(clientId),
    clientSecret: Option.some(Redacted.make(clientSecret))
  }
  // The guard's connections live as long as the harness: closed by stop().
  const runtime = ManagedRuntime.make(layer)
  const route = await runtime.runPromise(linkedinRoute(endpoints, routeOptions).pipe(Effect.provideService(CallDeadlines, shortDeadlines)))
  built.provider = route.oauth
  const connections = OAuthProviders.layer({ oauth: [route.oauth], logins: [], unconfigured: [] })
  const project = await runtime.runPromise(createProject({ name: "LinkedIn tests", timezone: "UTC", approval: "autopilot", signature: "", plan: "active" }))

  /** Herald's connection flow: started, the consent URL approved on the fake, its answer completed. */
  const connect = async (): Promise<{ readonly account: SocialAccount; readonly credentials: Credentials }> => {
    const started = await runtime.runPromise(
      Effect.provide(startConnection(project.id, "linkedin", { caller: "test", publicUrl: "https://herald.example" }), connections)
    )
    const callback = await fake.consent(started.authorizeUrl)
    const account = await runtime.runPromise(Effect.provide(
      completeConnection("linkedin", {
        state: callback.searchParams.get("state") ?? "",
        code: Option.fromNullable(callback.searchParams.get("code")),
        denied: Option.fromNullable(callback.searchParams.get("error"))
      }),
      connections
    ))
    return { account, credentials: data.credentials.get(account.id)! }
  }

  /** The page the connection flow connected beside the member, by its vanity name (its username). */
  const page = (username: string): SocialAccount => {
    const found = [...data.accounts.values()].find((account) => account.platform === "linkedin" && account.username === username)
    if (found === undefined) throw new Error(`no LinkedIn page ${username} connected`)
    return found
  }

  const withBytes = (media: Media, content: Uint8Array) => {
    bytes.set(media.storageKey, content)
    return media
  }

  const stop = async () => {
    await runtime.dispose()
    await fake.stop()
  }

  return { fake, route, data, connect, page, withBytes, stop, status: (account: SocialAccount) => data.accounts.get(account.id)?.status }
}
