// A direct route over OAuthFake, built with the kit alone: it proves the kit's pieces (guarded
// HttpClient, oauth2Provider, authorized, Failures) and the connection flow end to end. The
// platform is one no branch builds a direct publisher for.
import { HttpClientRequest } from "@effect/platform"
import type { AccountTokens, Platform, Publisher } from "@herald/core"
import { Effect, Option, Schema } from "effect"
import { accessToken, authorized } from "../../src/kit/Authorized.js"
import type { DirectRoute } from "../../src/kit/DirectRoute.js"
import { asPublish, asRead, categoryOfStatus, expectOk } from "../../src/kit/Failures.js"
import { oauth2Provider } from "../../src/kit/OAuth2.js"
import { platformClient } from "../../src/kit/PlatformHttp.js"

export const fakePlatform: Platform = "threads"

const classify = (reply: { readonly status: number; readonly body: unknown }) => ({
  category: categoryOfStatus(reply.status),
  code: `http_${reply.status}`,
  message: JSON.stringify(reply.body)
})

const Me = Schema.Struct({ data: Schema.Struct({ id: Schema.String, username: Schema.String }) })
const Created = Schema.Struct({ data: Schema.Struct({ id: Schema.String }) })

/** The fake's route; its base URLs come from HERALD_THREADS_API_URL / _AUTH_URL (the fake's URL). */
export const fakeDirectRoute: DirectRoute = {
  platform: fakePlatform,
  defaults: { apiBaseUrl: "https://fake.invalid", authBaseUrl: "https://fake.invalid" },
  build: (endpoints) =>
    Effect.gen(function*() {
      const api = yield* platformClient(endpoints.apiBaseUrl)
      const bearer = (credentials: Record<string, unknown>) => HttpClientRequest.bearerToken(accessToken(credentials))
      const ok = <A, I>(schema: Schema.Schema<A, I>) => expectOk(schema, classify)
      const oauth = yield* oauth2Provider({
        endpoints,
        authorizePath: "/oauth/authorize",
        tokenUrl: "/oauth/token",
        scopes: ["posts.write", "users.read", "offline.access"],
        clientAuthentication: "basic",
        identify: (credentials) =>
          asRead(api.read.execute(HttpClientRequest.get("/2/me").pipe(bearer(credentials))).pipe(
            Effect.flatMap(ok(Me)),
            Effect.map((me) => ({ platformAccountId: me.data.id, username: me.data.username }))
          ))
      })
      const context = yield* Effect.context<AccountTokens>()
      const publisher: Publisher = {
        capabilities: { publish: true, delete: false, reconcile: false, peopleTagCheck: false },
        publish: (request) =>
          asPublish(authorized(request.account, (credentials) =>
            api.publish.execute(
              HttpClientRequest.post("/2/posts").pipe(bearer(credentials), HttpClientRequest.bodyUnsafeJson({ text: request.text ?? "" }))
            ).pipe(Effect.flatMap(ok(Created))))).pipe(
            Effect.map((created) => ({ platformPostId: created.data.id, url: `https://fake.invalid/p/${created.data.id}`, note: null })),
            Effect.provide(context)
          ),
        reconcile: () => Effect.succeed(Option.none()),
        takedown: () => Effect.void
      }
      return { adapters: { platform: fakePlatform, route: "direct", publisher, metrics: null, probe: null }, oauth }
    })
}
