// A direct route over OAuthFake, built with the kit alone: it proves the kit's pieces (guarded
// HttpClient, oauth2Provider, authorized, Failures) and the connection flow end to end. The
// platform is one no branch builds a direct publisher for.
import { HttpClientRequest } from "@effect/platform"
import { type AccountTokens, AlreadyGone, MediaStorage, type Platform, type Publisher, type PublishRequest } from "@herald/core"
import { Effect, Option, Schema } from "effect"
import { accessToken, authorized } from "../../src/kit/Authorized.js"
import type { DirectRoute } from "../../src/kit/DirectRoute.js"
import { asPublish, asRead, categoryOfStatus, expectOk, PlatformRefusal } from "../../src/kit/Failures.js"
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
const Found = Schema.Struct({ data: Schema.Array(Schema.Struct({ id: Schema.String })) })
const Deleted = Schema.Struct({ data: Schema.Struct({ deleted: Schema.Boolean }) })

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
      const context = yield* Effect.context<AccountTokens | MediaStorage>()
      const storage = yield* MediaStorage
      const published = (id: string) => ({ platformPostId: id, url: `https://fake.invalid/p/${id}`, note: null })
      const upload = (credentials: Record<string, unknown>, key: string) =>
        Effect.flatMap(storage.read(key), (bytes) =>
          Option.isNone(bytes)
            ? Effect.fail(new PlatformRefusal({ error: { category: "media_rejected", code: "media_missing", message: key }, retryAfterMs: null }))
            : api.upload.execute(HttpClientRequest.post("/2/media").pipe(bearer(credentials), HttpClientRequest.bodyUint8Array(bytes.value)))
              .pipe(Effect.flatMap(ok(Created)), Effect.map((created) => created.data.id)))
      const publish = (request: PublishRequest) =>
        authorized(request.account, (credentials) =>
          Effect.gen(function*() {
            const mediaIds = yield* Effect.forEach(request.media, (item) => upload(credentials, item.storageKey))
            return yield* api.publish.execute(
              HttpClientRequest.post("/2/posts").pipe(
                bearer(credentials),
                HttpClientRequest.bodyUnsafeJson({ text: request.text ?? "", marker: request.marker, media_ids: mediaIds })
              )
            ).pipe(Effect.flatMap(ok(Created)))
          }))
      const publisher: Publisher = {
        publish: (request) =>
          asPublish(publish(request)).pipe(Effect.map((created) => published(created.data.id)), Effect.provide(context)),
        reconcile: (request) =>
          asPublish(authorized(request.account, (credentials) =>
            api.read.execute(HttpClientRequest.get("/2/posts").pipe(bearer(credentials), HttpClientRequest.setUrlParam("marker", request.marker)))
              .pipe(Effect.flatMap(ok(Found))))).pipe(
            Effect.map((found) => Option.map(Option.fromNullable(found.data[0]), (post) => published(post.id))),
            Effect.provide(context)
          ),
        takedown: (account, id) =>
          asPublish(authorized(account, (credentials) =>
            api.publish.execute(HttpClientRequest.del(`/2/posts/${encodeURIComponent(id)}`).pipe(bearer(credentials)))
              .pipe(Effect.flatMap(ok(Deleted))))).pipe(
            Effect.catchIf(
              (error) => error._tag === "PublishFailed" && error.error.category === "not_found",
              () => Effect.fail(new AlreadyGone({ detail: `post ${id} is not on the platform` }))
            ),
            Effect.asVoid,
            Effect.provide(context)
          )
      }
      return { adapters: { platform: fakePlatform, route: "direct", publisher, metrics: null, probe: null }, oauth }
    })
}
