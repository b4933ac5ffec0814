import { describe, expect, it } from "@effect/vitest"
import { OutboundGuard } from "@herald/outbound"
import { Clock, DateTime, Effect, Layer, Option, Redacted } from "effect"
import { platformClient, PlatformHttpLive } from "../../src/kit/index.js"
import { facebookLogin } from "../../src/meta/FacebookLogin.js"
import { graphVersions } from "../../src/meta/GraphVersions.js"
import { FacebookLoginFake, type FakePage } from "./FacebookLoginFake.js"
import { GraphFakeServer } from "./GraphFakeServer.js"

const clientId = "987654321012345"
const clientSecret = "fake-facebook-app-secret"
const permissions = ["pages_show_list", "pages_manage_posts", "pages_read_engagement", "instagram_basic", "instagram_content_publish"]

const page = (n: number, extra: Partial<FakePage> = {}): FakePage => ({ id: `10${n}`, name: `Page ${n}`, tasks: ["CREATE_CONTENT", "MANAGE"], ...extra })

/** The login over a fake on loopback, through the production HTTP client and outbound guard. */
const withLogin = <A, E>(
  fakeOptions: { pages: ReadonlyArray<FakePage>; withheld?: ReadonlyArray<string> },
  body: (login: ReturnType<typeof facebookLogin>, fake: FacebookLoginFake, configId?: string) => Effect.Effect<A, E>,
  configId?: string
) =>
  Effect.scoped(Effect.gen(function*() {
    const fake = new FacebookLoginFake({ clientId, clientSecret, version: graphVersions.facebook, permissions, ...fakeOptions })
    const server = new GraphFakeServer((request, reply) => fake.handles(request) ? fake.handle(request, reply) : reply.unsupported(request.method, request.path))
    yield* Effect.acquireRelease(Effect.promise(() => server.start()), () => Effect.promise(() => server.stop()))
    const http = PlatformHttpLive.pipe(Layer.provide(Layer.orDie(OutboundGuard.layer({ loopbackPorts: [Number(new URL(server.url).port)] }))))
    const api = yield* Effect.provide(platformClient(server.url), yield* Layer.build(http))
    const endpoints = { platform: "facebook" as const, apiBaseUrl: server.url, authBaseUrl: server.url, clientId: Option.some(clientId), clientSecret: Option.some(Redacted.make(clientSecret)) }
    return yield* body(facebookLogin(endpoints, api, { network: "Facebook", configId: Option.fromNullable(configId) }), fake)
  }))

const redirectUri = "https://herald.example/oauth/callback/facebook"

const consent = (fake: FacebookLoginFake, url: string) => Effect.promise(() => fake.consent(url))

describe("Facebook Login", () => {
  it.effect("the dialog is on the pinned version with the scopes comma separated; the code becomes a long-lived user token", () =>
    withLogin({ pages: [page(1)] }, (login, fake) =>
      Effect.gen(function*() {
        const url = new URL(login.dialogUrl({ state: "s1", redirectUri, scopes: ["pages_show_list", "pages_manage_posts"] }))
        expect(url.pathname).toBe(`/${graphVersions.facebook}/dialog/oauth`)
        expect(Object.fromEntries(url.searchParams)).toEqual({ client_id: clientId, redirect_uri: redirectUri, state: "s1", response_type: "code", scope: "pages_show_list,pages_manage_posts" })
        const back = yield* consent(fake, url.toString())
        expect(back.searchParams.get("state")).toBe("s1")
        const before = yield* Clock.currentTimeMillis
        const token = yield* login.userToken({ code: back.searchParams.get("code")!, redirectUri })
        expect(fake.tokenCalls).toEqual(["code", "fb_exchange_token"])
        expect(fake.userToken(token.accessToken)?.kind).toBe("long")
        // About 60 days (5,183,944 seconds) from now.
        expect(DateTime.toEpochMillis(token.expiresAt!) - before).toBe(5183944_000)
      })))

  it.effect("a Facebook Login for Business configuration replaces the scope list", () =>
    withLogin({ pages: [page(1)] }, (login) =>
      Effect.sync(() => {
        const url = new URL(login.dialogUrl({ state: "s", redirectUri, scopes: ["pages_show_list"] }))
        expect(url.searchParams.get("config_id")).toBe("cfg-42")
        expect(url.searchParams.has("scope")).toBe(false)
      }), "cfg-42"))

  it.effect("a code used twice, or sent with another redirect URI, is refused as auth_expired without the secret in the message", () =>
    withLogin({ pages: [page(1)] }, (login, fake) =>
      Effect.gen(function*() {
        const back = yield* consent(fake, login.dialogUrl({ state: "s", redirectUri, scopes: ["pages_show_list"] }))
        const code = back.searchParams.get("code")!
        const other = yield* Effect.flip(login.userToken({ code, redirectUri: "https://elsewhere.example/cb" }))
        expect(other.error).toMatchObject({ category: "auth_expired", code: "100/36008" })
        const again = yield* Effect.flip(login.userToken({ code, redirectUri }))
        expect(again.error).toMatchObject({ category: "auth_expired", code: "100/36009" })
        expect(JSON.stringify([other, again])).not.toContain(clientSecret)
      })))

  it.effect("lists every Page across cursor pages with its token, tasks and linked Instagram account; Pages not granted are left out", () => {
    const pages = Array.from({ length: 205 }, (_, i) => page(i, i === 3 ? { instagram: { id: "17841400000000003", username: "page.three" } } : {}))
    return withLogin({ pages, withheld: ["104"] }, (login, fake) =>
      Effect.gen(function*() {
        const back = yield* consent(fake, login.dialogUrl({ state: "s", redirectUri, scopes: ["pages_show_list"] }))
        const token = yield* login.userToken({ code: back.searchParams.get("code")!, redirectUri })
        const listed = yield* login.pages(token.accessToken)
        expect(listed.map((entry) => entry.id)).toEqual(pages.map((entry) => entry.id).filter((id) => id !== "104"))
        expect(listed[3]).toMatchObject({ id: "103", name: "Page 3", tasks: ["CREATE_CONTENT", "MANAGE"], instagram: { id: "17841400000000003", username: "page.three" } })
        expect(listed[0]!.instagram).toBeNull()
        expect(fake.pageToken(listed[0]!.accessToken)?.pageId).toBe("100")
        // One Page asked for again with the user token: a new token for it.
        const again = yield* login.page(token.accessToken, "103")
        expect(fake.pageToken(again.accessToken)?.pageId).toBe("103")
        const withheld = yield* Effect.flip(login.page(token.accessToken, "104"))
        expect(withheld.error).toMatchObject({ category: "permission_missing", code: "page_token_withheld" })
      }))
  })

  it.effect("a revoked user token is auth_expired when listing Pages", () =>
    withLogin({ pages: [page(1)] }, (login, fake) =>
      Effect.gen(function*() {
        const back = yield* consent(fake, login.dialogUrl({ state: "s", redirectUri, scopes: ["pages_show_list"] }))
        const token = yield* login.userToken({ code: back.searchParams.get("code")!, redirectUri })
        fake.revokeGrant()
        const failed = yield* Effect.flip(login.pages(token.accessToken))
        expect(failed.error).toMatchObject({ category: "auth_expired", code: "190/458" })
      })))
})
