/**
 * What the Bluesky tests run the direct route on: a real local PDS (with the fake AppView behind
 * it), accounts logged in through the route's own PasswordLogin, their sessions held in memory,
 * and media bytes held in memory.
 */
import {
  AccountTokens,
  completeConnection,
  createProject,
  type Credentials,
  loginConnection,
  makeAccountTokens,
  Media,
  MediaId,
  MediaStorage,
  OAuthProviders,
  type OAuthProvider,
  type PasswordLogin,
  type RouteAdapters,
  SocialAccount,
  startConnection
} from "@herald/core"
import { InMemoryData, makeInMemoryAdmin, makeInMemoryStores, sequentialIds } from "@herald/core/memory"
import { OutboundGuard } from "@herald/outbound"
import { DateTime, Effect, Either, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { blueskyRoute } from "../../src/bluesky/BlueskyRoute.js"
import { PlatformHttpLive } from "../../src/kit/index.js"
import { pkceSecrets } from "../kit/PkceSecrets.js"
import { type FakeAppView, startFakeAppView } from "./FakeAppView.js"
import type { FakeControls } from "../kit/publisherContract.js"
import { type FaultProxy, startFaultProxy } from "./FaultProxy.js"
import { type LocalAccount, type LocalPds, startLocalPds } from "./LocalPds.js"

export { readRecord } from "./LocalPds.js"

/** A 1×1 PNG. */
export const png = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64"
)
/** The start of an MP4 file: an ftyp box, enough for the PDS to recognise video/mp4. */
export const mp4 = Buffer.concat([
  Buffer.from([0, 0, 0, 0x20]),
  Buffer.from("ftypisom", "ascii"),
  Buffer.from([0, 0, 2, 0]),
  Buffer.from("isomiso2avc1mp41", "ascii"),
  Buffer.from([0, 0, 0, 8]),
  Buffer.from("free", "ascii")
])

export interface Connected {
  readonly local: LocalAccount
  readonly account: SocialAccount
}

export interface PdsHarness {
  readonly pds: LocalPds
  readonly appView: FakeAppView
  /** A web page on loopback with OpenGraph tags, for link cards. */
  readonly pageUrl: string
  /** The route reaches the PDS through this proxy, which injects faults on request. */
  readonly proxy: FaultProxy
  readonly adapters: RouteAdapters
  readonly login: PasswordLogin
  readonly oauth: OAuthProvider
  /**
   * Creates a `<name>.test` account with an app password named "herald" and connects it to a
   * project through Herald's login connection (loginConnection), as the admin API does.
   */
  readonly connect: (name: string) => Promise<Connected>
  /**
   * Creates a `<name>.test` account and connects it through Herald's atproto OAuth connection
   * (startConnection with the handle, the owner's sign-in and consent at the PDS, then
   * completeConnection with the callback's code, state and iss), as the admin API does.
   */
  readonly connectOAuth: (name: string) => Promise<Connected>
  /** Starts an OAuth connection for the account and answers the consent: the callback's parameters, not yet used. */
  readonly consentOAuth: (local: LocalAccount) => Promise<URL>
  /** Hands a consent answer to completeConnection, as the callback route does: the account, or the core's refusal. */
  readonly completeOAuth: (callback: URL) => Promise<Either.Either<SocialAccount, unknown>>
  /** Connects the account again through the login connection, with a new app password. */
  readonly reconnect: (connected: Connected) => Promise<SocialAccount>
  /** The account's credentials as Herald stores them. */
  readonly credentials: (account: SocialAccount) => Credentials
  /** The account as Herald stores it now (its status). */
  readonly reload: (account: SocialAccount) => SocialAccount
  readonly media: (kind: "image" | "video", bytes: Uint8Array, fields?: Partial<Pick<Media, "altText" | "width" | "height" | "mime">>) => Media
  readonly close: () => Promise<void>
}

export const startPdsHarness = async (): Promise<PdsHarness> => {
  const appView = await startFakeAppView()
  const pds = await startLocalPds({ appView })
  appView.servePds(pds.url)
  const proxy = await startFaultProxy(pds.url, pds.expiredCopy)
  const page = await startPage()
  const bytes = new Map<string, Uint8Array>()
  const data = new InMemoryData()
  // Only `read` is used by a publisher; the rest is the upload side, which these tests do not go through.
  const storage = MediaStorage.of({
    read: (key) => Effect.sync(() => Option.fromNullable(bytes.get(key))),
    keep: () => Effect.void,
    remove: () => Effect.void,
    configured: true,
    uploadForm: () => Effect.succeed(Option.none()),
    takeUpload: () => Effect.succeed(Option.none())
  })
  // The production client over the outbound guard with the test-only loopback allowance: OAuth
  // reaches the PDS by the name its DID documents give it (http://localhost:PORT), and its PLC.
  const http = PlatformHttpLive.pipe(Layer.provide(OutboundGuard.layer({ allowLoopback: true })))
  // The guard's connections live as long as the runtime: until close.
  const runtime = ManagedRuntime.make(Layer.mergeAll(
    http,
    Layer.succeed(MediaStorage, storage),
    makeInMemoryStores(data),
    makeInMemoryAdmin(data),
    sequentialIds(),
    pkceSecrets
  ))
  // As app/src/DirectRoutes.ts does: AccountTokens renews sessions with a Bluesky login over the same client.
  const settings = { apiBaseUrl: proxy.url, authBaseUrl: pds.url, clientId: Option.none(), plcUrl: pds.plcUrl }
  const renewal = await runtime.runPromise(blueskyRoute(settings).pipe(Effect.provideService(AccountTokens, AccountTokens.of({
    current: () => Effect.die("renewal only"),
    afterRefusal: () => Effect.die("renewal only")
  }))))
  const tokens = await runtime.runPromise(makeAccountTokens(() => Effect.succeed(renewal.login.refresh)))
  const route = await runtime.runPromise(blueskyRoute(settings).pipe(Effect.provideService(AccountTokens, tokens)))
  const project = await runtime.runPromise(
    createProject({ name: "Bluesky tests", timezone: "UTC", approval: "autopilot", signature: "", plan: "active" })
  )
  const methods = OAuthProviders.make({ oauth: [route.oauth], logins: [route.login], unconfigured: [] })
  const inHerald = <A, E, R extends ManagedRuntime.ManagedRuntime.Context<typeof runtime> | OAuthProviders>(effect: Effect.Effect<A, E, R>) =>
    runtime.runPromise(Effect.provideService(effect, OAuthProviders, methods) as Effect.Effect<A, E, ManagedRuntime.ManagedRuntime.Context<typeof runtime>>)
  // Herald on a loopback public URL: the atproto loopback client, as in development.
  const publicUrl = "http://127.0.0.1:8080"
  const consentOAuth = async (local: LocalAccount) => {
    const started = await inHerald(startConnection(project.id, "bluesky", { caller: "test", publicUrl, loginHint: local.handle }))
    return pds.consent(started.authorizeUrl, local)
  }
  const completeOAuth = (callback: URL) =>
    inHerald(Effect.either(completeConnection("bluesky", {
      state: callback.searchParams.get("state") ?? "",
      code: Option.fromNullable(callback.searchParams.get("code")),
      denied: Option.fromNullable(callback.searchParams.get("error")),
      issuer: Option.fromNullable(callback.searchParams.get("iss"))
    })))
  /** A new app password of the account, given to Herald's login connection. */
  const loginWithNewAppPassword = async (local: LocalAccount, name: string) => {
    const appPassword = await pds.createAppPassword(local, name)
    return runtime.runPromise(
      loginConnection(project.id, "bluesky", { identifier: local.handle, password: Redacted.make(appPassword) }).pipe(
        Effect.provideService(OAuthProviders, methods)
      )
    )
  }

  return {
    pds,
    appView,
    proxy,
    pageUrl: `${page.url}/article?id=7`,
    adapters: route.adapters,
    login: route.login,
    oauth: route.oauth,
    consentOAuth,
    completeOAuth,
    connectOAuth: async (name) => {
      const local = await pds.createAccount(name)
      return { local, account: Either.getOrThrow(await completeOAuth(await consentOAuth(local))) }
    },
    connect: async (name) => {
      const local = await pds.createAccount(name)
      return { local, account: await loginWithNewAppPassword(local, "herald") }
    },
    reconnect: ({ local }) => loginWithNewAppPassword(local, `herald-${randomUUID().slice(0, 8)}`),
    credentials: (account) => data.credentials.get(account.id)!,
    reload: (account) => data.accounts.get(account.id)!,
    media: (kind, content, fields = {}) => {
      const item = new Media({
        id: MediaId.make(randomUUID()),
        projectId: project.id,
        kind,
        mime: fields.mime ?? (kind === "image" ? "image/png" : "video/mp4"),
        bytes: content.length,
        filename: null,
        width: fields.width ?? null,
        height: fields.height ?? null,
        durationSeconds: kind === "video" ? 1 : null,
        codec: kind === "image" ? "png" : "h264",
        altText: fields.altText ?? null,
        peopleTags: [],
        thumbnailTimestampMs: null,
        storageKey: `memory/${randomUUID()}`,
        createdAt: DateTime.unsafeMake("2030-01-01T00:00:00Z")
      })
      bytes.set(item.storageKey, content)
      return item
    },
    close: async () => {
      await runtime.dispose()
      await page.close()
      await proxy.close()
      await pds.close()
      await appView.close()
    }
  }
}

/**
 * The contract's handle on the fake for one connected account. Bluesky's grant is the app password
 * the account gave: revoking it is the only revocation there is (app-password sessions carry no
 * scopes), so revokeScope revokes the grant. The PDS keeps honouring an access token until it
 * expires, so revoking also expires the token in use.
 */
export const contractControls = (harness: PdsHarness, connected: Connected): FakeControls => {
  const revoke = () => {
    harness.proxy.holdUntil(harness.pds.revokeAppPassword(connected.local, "herald"))
    harness.proxy.expireToken()
  }
  return {
    failNext: (reply) => harness.proxy.failNext(reply),
    hangNext: () => harness.proxy.hangNext(),
    expireToken: () => harness.proxy.expireToken(),
    revokeGrant: revoke,
    revokeScope: revoke,
    publishScope: "com.atproto.appPass",
    posts: () => harness.proxy.posts(),
    refreshes: () => harness.proxy.refreshes()
  }
}

/** An article page whose head names it for sharing, with an image, as news sites do. */
const startPage = async () => {
  const server = createServer((request, response) => {
    if (request.url === "/images/dot.png") {
      response.writeHead(200, { "content-type": "image/png" })
      response.end(png)
      return
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(`<!doctype html><html><head><title>Fallback title</title>
<meta content="Spring &amp; the garden" property="og:title">
<meta property='og:description' content='What grows first, and why.'>
<meta property="og:image" content="/images/dot.png">
</head><body>${"<p>text</p>".repeat(100)}</body></html>`)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** A blob's bytes as the PDS serves them (com.atproto.sync.getBlob). */
export const readBlob = async (pds: LocalPds, did: string, cid: string): Promise<Buffer> => {
  const response = await fetch(`${pds.url}/xrpc/com.atproto.sync.getBlob?${new URLSearchParams({ did, cid })}`)
  if (!response.ok) throw new Error(`getBlob ${cid}: ${response.status} ${await response.text()}`)
  return Buffer.from(await response.arrayBuffer())
}
