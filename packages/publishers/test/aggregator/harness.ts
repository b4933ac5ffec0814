/**
 * What the Ayrshare tests run on: the fake on loopback, Instagram's aggregator route built over
 * it through the production HTTP client and the outbound guard (allowed to reach the fake's port
 * only), accounts connected through Herald's admin use case with the aggregator's keys, their
 * keys kept by AccountTokens over the in-memory stores, and stored media at public URLs (Ayrshare
 * fetches media itself; the fake only counts the URLs).
 */
import {
  AccountTokens,
  connectAccount,
  createProject,
  IdGenerator,
  makeAccountTokens,
  Media,
  MediaId,
  MediaStorage,
  OAuthProviders,
  ProjectId
} from "@herald/core"
import { InMemoryData, makeInMemoryAdmin, makeInMemoryStores, sequentialSecrets } from "@herald/core/memory"
import { OutboundGuard } from "@herald/outbound"
import { DateTime, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { type AggregatorRoute, ayrshareRoute } from "../../src/aggregator/AyrshareRoute.js"
import { CallDeadlines, type Deadlines, PlatformHttpLive } from "../../src/kit/index.js"
import { shortDeadlines } from "../kit/Deadlines.js"
import { AyrshareFake, type AyrshareFakeOptions } from "./AyrshareFake.js"

export const apiKey = "AYR-TEST-API-KEY-0001"
export const profileKey = "PROFILE-KEY-ACME-0001"

export const mediaItem = (kind: "image" | "video", details: { readonly peopleTags?: ReadonlyArray<string>; readonly thumbnailTimestampMs?: number } = {}) =>
  new Media({
    id: MediaId.make(randomUUID()),
    projectId: ProjectId.make(randomUUID()),
    kind,
    mime: kind === "image" ? "image/jpeg" : "video/mp4",
    bytes: 4,
    filename: null,
    width: 1080,
    height: 1080,
    durationSeconds: kind === "video" ? 5 : null,
    codec: kind === "image" ? "mjpeg" : "h264",
    altText: null,
    peopleTags: details.peopleTags ?? [],
    thumbnailTimestampMs: details.thumbnailTimestampMs ?? null,
    storageKey: randomUUID(),
    createdAt: DateTime.unsafeMake("2026-11-24T08:00:00Z")
  })

/** Where a stored item is served from, as a bucket's presigned GET would be. */
export const publicUrlOf = (key: string) => `https://media.herald.example/${key}`

export const makeHarness = async (route: AggregatorRoute, fakeOptions: Partial<AyrshareFakeOptions> = {}) => {
  const fake = await new AyrshareFake({
    apiKey,
    profiles: { [profileKey]: { username: "acme.studio", instagramId: "17841400000000001" } },
    knownHandles: ["ana.lopez", "ben_k"],
    ...fakeOptions
  }).start()
  const data = new InMemoryData()
  const stored = new Set<string>()
  const noStorage = await Effect.runPromise(Effect.provide(MediaStorage, MediaStorage.unconfigured))
  const stores = Layer.mergeAll(
    makeInMemoryStores(data),
    makeInMemoryAdmin(data),
    sequentialSecrets(),
    Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) }))
  )
  // Ayrshare's keys do not expire: there is no refresher, and a refused key marks the account.
  const tokens = Layer.effect(AccountTokens, makeAccountTokens(() => Effect.succeed(undefined))).pipe(Layer.provide(stores))
  const layer = Layer.mergeAll(
    PlatformHttpLive.pipe(Layer.provide(Layer.orDie(OutboundGuard.layer({ loopbackPorts: [Number(new URL(fake.url).port)] })))),
    tokens,
    stores,
    Layer.succeed(MediaStorage, {
      ...noStorage,
      publicUrl: (key: string) => Effect.succeed(stored.has(key) ? Option.some(publicUrlOf(key)) : Option.none())
    })
  )
  const runtime = ManagedRuntime.make(layer)
  /** The route built under these deadlines, over the harness's stores and accounts. */
  const routeWithin = (deadlines: Deadlines) => runtime.runPromise(ayrshareRoute(fake.apiUrl, route).pipe(Effect.provideService(CallDeadlines, deadlines)))
  const built = await routeWithin(shortDeadlines)
  const connections = OAuthProviders.layer({ oauth: [], logins: [], keys: [built.keys], unconfigured: [] })
  const project = await runtime.runPromise(createProject({ name: "ayrshare tests", timezone: "UTC", approval: "autopilot", signature: "", plan: "active" }))

  type Keys = { readonly apiKey: string; readonly profileKey: string | null }
  /** Herald's connection with the keys, as the admin API makes it. */
  const connecting = (username = "acme.studio", keys: Keys = { apiKey, profileKey }) =>
    Effect.provide(
      connectAccount(project.id, {
        platform: "instagram",
        username,
        route,
        keys: { apiKey: Redacted.make(keys.apiKey), profileKey: keys.profileKey === null ? null : Redacted.make(keys.profileKey) }
      }),
      connections
    )

  const store = (media: Media) => {
    stored.add(media.storageKey)
    return media
  }

  const stop = async () => {
    await runtime.dispose()
    await fake.stop()
  }

  return {
    fake,
    route: built,
    routeWithin,
    data,
    runtime,
    connect: (username?: string, keys?: Keys) => runtime.runPromise(connecting(username, keys)),
    connectExit: (username?: string, keys?: Keys) => runtime.runPromiseExit(connecting(username, keys)),
    store,
    stop
  }
}
