/**
 * What the LinkedIn tests run on: the fake on loopback, the route built against it through the
 * production HTTP client, an account connected through the fake's consent page, and stand-ins for
 * the kit's token store and media bytes.
 */
import { FetchHttpClient } from "@effect/platform"
import { type Credentials, Media, MediaId, PlatformCallFailed, ProjectId, type SocialAccount } from "@herald/core"
import { DateTime, Duration, Effect, Layer, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { AccountTokens, MediaBytes } from "../../src/linkedin/KitShim.js"
import { linkedinRoute, type LinkedinOptions } from "../../src/linkedin/LinkedinRoute.js"
import { Deadlines } from "../../src/linkedin/Rest.js"
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
    storageKey: "k",
    createdAt: DateTime.unsafeMake("2026-11-24T08:00:00Z")
  })

export const makeHarness = async (fakeOptions: Partial<FakeOptions> = {}, routeOptions: LinkedinOptions = {}) => {
  const fake = await new LinkedinFake({ clientId, clientSecret, ...fakeOptions }).start()
  const tokens = new TestTokens()
  const bytes = new Map<string, Uint8Array>()
  const layer = Layer.mergeAll(
    FetchHttpClient.layer,
    Layer.succeed(AccountTokens, tokens.service),
    Layer.succeed(MediaBytes, {
      read: (media: Media) =>
        bytes.has(media.id) ? Effect.succeed(bytes.get(media.id)!) : Effect.fail({ _tag: "MediaUnreadable" as const, detail: `no bytes for ${media.id}` })
    })
  )
  const route = await Effect.runPromise(
    Effect.provide(linkedinRoute({ apiBaseUrl: fake.url, authBaseUrl: fake.url, clientId, clientSecret: Redacted.make(clientSecret) }, routeOptions), layer)
  )
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
    bytes.set(media.id, content)
    return media
  }

  return { fake, route, tokens, connect, withBytes, stop: () => fake.stop() }
}

/** Short deadlines, so that a call that never gets its answer fails in a test's time. */
export const shortDeadlines = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, Deadlines, { read: Duration.millis(500), publish: Duration.millis(500), upload: Duration.millis(500) })
