/**
 * What the LinkedIn tests run on: the fake on loopback, the route built against it through the
 * production HTTP client over the outbound guard, an account connected through the fake's consent
 * page, and stand-ins for the kit's token store (until its PostgreSQL one lands) and media storage.
 */
import { AccountTokens, type Credentials, Media, MediaId, MediaStorage, PlatformCallFailed, ProjectId, type SocialAccount } from "@herald/core"
import { OutboundGuard } from "@herald/outbound"
import { DateTime, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { PlatformHttpLive } from "../../src/kit/index.js"
import { linkedinRoute, type LinkedinOptions } from "../../src/linkedin/LinkedinRoute.js"
import { account } from "../fixtures.js"
import { type FakeOptions, LinkedinFake } from "./LinkedinFake.js"

const clientId = "86fake0client"
const clientSecret = "fake-secret-value"
export const redirectUri = "https://herald.example/v1/connections/callback"

/**
 * Tokens as the kit keeps them: the stored credentials, refreshed through the provider after a
 * refusal (once per refused token), a refused refresh marking the account needs_reconnect.
 */
export class TestTokens {
  readonly stored = new Map<string, Credentials>()
  readonly needsReconnect = new Set<string>()
  refresh: ((credentials: Credentials) => Effect.Effect<{ credentials: Credentials }, PlatformCallFailed>) | undefined

  readonly service = AccountTokens.of({
    current: (target) => {
      const credentials = this.stored.get(target.id)
      return credentials === undefined || this.needsReconnect.has(target.id)
        ? Effect.fail(new PlatformCallFailed({ error: { category: "auth_expired", code: "needs_reconnect", message: "reconnect the account" }, retryAfterMs: null }))
        : Effect.succeed(credentials)
    },
    afterRefusal: (target, refused) => {
      const credentials = this.stored.get(target.id)!
      if (credentials["access_token"] !== refused["access_token"]) return Effect.succeed(credentials)
      return this.refresh!(credentials).pipe(
        Effect.map((grant) => {
          this.stored.set(target.id, grant.credentials)
          return grant.credentials
        }),
        Effect.tapError((failed) => Effect.sync(() => failed.error.category === "auth_expired" && this.needsReconnect.add(target.id)))
      )
    }
  })
}

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

export const makeHarness = async (fakeOptions: Partial<FakeOptions> = {}, routeOptions: LinkedinOptions = {}) => {
  const fake = await new LinkedinFake({ clientId, clientSecret, ...fakeOptions }).start()
  const tokens = new TestTokens()
  const bytes = new Map<string, Uint8Array>()
  const noStorage = await Effect.runPromise(Effect.provide(MediaStorage, MediaStorage.unconfigured))
  const layer = Layer.mergeAll(
    // The production client over the outbound guard, allowed to reach the fake's loopback port only.
    PlatformHttpLive.pipe(Layer.provide(Layer.orDie(OutboundGuard.layer({ loopbackPorts: [Number(new URL(fake.url).port)] })))),
    Layer.succeed(AccountTokens, tokens.service),
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
  const route = await runtime.runPromise(linkedinRoute(endpoints, routeOptions))
  tokens.refresh = route.oauth.refresh

  /** Connects an account the way Herald's flow does: consent URL, the member approves, the code exchanged. */
  const connect = async (shape: (credentials: Credentials) => Credentials = (credentials) => credentials) => {
    const state = randomUUID()
    const callback = await fake.consent(route.oauth.authorizeUrl({ state, codeChallenge: "unused-by-linkedin", redirectUri }))
    if (callback.searchParams.get("state") !== state) throw new Error("the state did not come back")
    const grant = await Effect.runPromise(route.oauth.exchange({ code: callback.searchParams.get("code")!, codeVerifier: "unused", redirectUri }))
    const credentials = shape(grant.credentials)
    const identity = await Effect.runPromise(route.oauth.identify(credentials))
    const target: SocialAccount = account("linkedin", identity.username, "direct")
    tokens.stored.set(target.id, credentials)
    return { account: target, identity, credentials }
  }

  const withBytes = (media: Media, content: Uint8Array) => {
    bytes.set(media.storageKey, content)
    return media
  }

  const stop = async () => {
    await runtime.dispose()
    await fake.stop()
  }

  return { fake, route, tokens, connect, withBytes, stop }
}
