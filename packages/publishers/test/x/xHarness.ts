import {
  AccountId,
  AccountTokens,
  type Credentials,
  Media,
  MediaId,
  MediaStorage,
  type OAuthProvider,
  PlatformCallFailed,
  ProjectId,
  type RouteAdapters,
  SocialAccount
} from "@herald/core"
import { OutboundGuard } from "@herald/outbound"
import { DateTime, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { createHash, randomBytes, randomUUID } from "node:crypto"
import { PlatformHttpLive } from "../../src/kit/index.js"
import { xRoute } from "../../src/x/index.js"
import { startXFake, type XFake, type XFakeOptions } from "./XFake.js"

/**
 * Herald's X route against the fake, over the production HttpClient and the outbound guard (its
 * test-only loopback allowance for the fake's port). Until the kit's connection flow and token
 * store are merged, accounts are connected here by following the consent URL to a callback and
 * the tokens are kept in memory by a stand-in for AccountTokens that refreshes through the same
 * OAuthProvider; nothing writes tokens by hand.
 */
export interface XHarness {
  readonly fake: XFake
  readonly adapters: RouteAdapters
  readonly oauth: OAuthProvider
  /** Follows the consent URL on the fake back to a callback, and connects (or reconnects) the account. */
  readonly connect: () => Promise<SocialAccount>
  readonly credentials: (account: SocialAccount) => Credentials | undefined
  readonly status: (account: SocialAccount) => SocialAccount["status"]
  readonly storeMedia: (media: { kind: "image" | "video"; mime: string; bytes: Uint8Array; altText?: string | null }) => Media
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly close: () => Promise<void>
}

const projectId = ProjectId.make(randomUUID())

export const startXHarness = async (options: XFakeOptions = {}): Promise<XHarness> => {
  const fake = await startXFake(options)
  const port = Number(new URL(fake.url).port)
  const stored = new Map<string, { credentials: Credentials; status: SocialAccount["status"] }>()
  const files = new Map<string, Uint8Array>()
  // The route is built over these tokens, which refresh through the route's own provider.
  const provider: { oauth?: OAuthProvider } = {}

  const needsReconnect = (account: SocialAccount, failure: PlatformCallFailed) =>
    Effect.suspend(() => {
      const entry = stored.get(account.id)
      if (entry !== undefined && failure.error.category === "auth_expired") entry.status = "needs_reconnect"
      return Effect.fail(failure)
    })

  const refreshOf = (account: SocialAccount, credentials: Credentials) =>
    provider.oauth!.refresh(credentials).pipe(
      Effect.tap((grant) => Effect.sync(() => stored.set(account.id, { credentials: grant.credentials, status: "active" }))),
      Effect.map((grant) => grant.credentials),
      Effect.catchAll((failure) => needsReconnect(account, failure))
    )

  const missing = (account: SocialAccount) =>
    new PlatformCallFailed({ error: { category: "auth_expired", code: "not_connected", message: `${account.username} is not connected` }, retryAfterMs: null })

  const tokens = AccountTokens.of({
    current: (account) =>
      Effect.gen(function*() {
        const entry = stored.get(account.id)
        if (entry === undefined) return yield* missing(account)
        const expiresAt = typeof entry.credentials.expires_at === "string" ? DateTime.unsafeMake(entry.credentials.expires_at) : null
        const now = yield* DateTime.now
        return expiresAt !== null && DateTime.lessThan(expiresAt, DateTime.add(now, { minutes: 5 }))
          ? yield* refreshOf(account, entry.credentials)
          : entry.credentials
      }),
    afterRefusal: (account, refused) =>
      Effect.suspend(() => {
        const entry = stored.get(account.id)
        if (entry === undefined) return Effect.fail(missing(account))
        return entry.credentials.access_token !== refused.access_token ? Effect.succeed(entry.credentials) : refreshOf(account, entry.credentials)
      })
  })

  const storage = MediaStorage.of({
    ...Effect.runSync(Effect.provide(MediaStorage, MediaStorage.unconfigured)),
    // Only reading is a publisher's business.
    read: (key) => Effect.sync(() => Option.fromNullable(files.get(key)))
  })

  const layer = PlatformHttpLive.pipe(
    Layer.provide(OutboundGuard.layer({ loopbackPorts: [port] })),
    Layer.merge(Layer.succeed(AccountTokens, tokens)),
    Layer.merge(Layer.succeed(MediaStorage, storage))
  )
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
  const route = await run(Effect.provide(xRoute(endpoints), runtime))
  provider.oauth = route.oauth

  const connect = async () => {
    const verifier = randomBytes(32).toString("base64url")
    const challenge = createHash("sha256").update(verifier).digest("base64url")
    const state = randomBytes(16).toString("base64url")
    const redirectUri = "http://127.0.0.1:1/oauth/callback/x"
    const consent = await fetch(route.oauth.authorizeUrl({ state, codeChallenge: challenge, redirectUri }), { redirect: "manual" })
    const callback = new URL(consent.headers.get("location") ?? "")
    if (callback.searchParams.get("state") !== state) throw new Error("the fake sent back another state")
    const grant = await run(route.oauth.exchange({ code: callback.searchParams.get("code") ?? "", codeVerifier: verifier, redirectUri }))
    const identity = await run(route.oauth.identify(grant.credentials))
    const known = [...stored.keys()].find((id) => stored.get(id)!.credentials.user_id === identity.platformAccountId)
    const account = new SocialAccount({
      id: AccountId.make(known ?? randomUUID()),
      projectId,
      platform: "x",
      username: identity.username,
      route: "direct",
      status: "active"
    })
    stored.set(account.id, { credentials: { ...grant.credentials, user_id: identity.platformAccountId }, status: "active" })
    return account
  }

  return {
    fake,
    adapters: route.adapters,
    oauth: route.oauth,
    connect,
    credentials: (account) => stored.get(account.id)?.credentials,
    status: (account) => stored.get(account.id)?.status ?? "disconnected",
    storeMedia: ({ altText = null, bytes, kind, mime }) => {
      const storageKey = `media/${randomUUID()}`
      files.set(storageKey, bytes)
      return new Media({
        id: MediaId.make(randomUUID()),
        projectId,
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
