import { Etag, FileSystem, type HttpApi, HttpApiBuilder, HttpMiddleware, HttpPlatform, HttpRouter, HttpServer, Path } from "@effect/platform"
import { Effect, Layer, Scope } from "effect"
import { HeraldApi } from "./Api.js"
import { HmacApprovalLinks } from "./ApprovalLinks.js"
import { ApprovalPageLive } from "./ApprovalPage.js"
import { AuthenticationLive } from "./Authentication.js"
import { FailuresLive } from "./Failures.js"
import { AccountsLive, AnalyticsLive, DeliveriesLive, PostsLive, SpecLive } from "./Handlers.js"
import { MediaAttachHttpLive, MediaHttpLive } from "./media/MediaHttp.js"
import { RequestBodyGuardLive } from "./RequestBody.js"
import { observeRequests } from "./RequestObservation.js"
import { RequestUrlGuardLive } from "./RequestUrl.js"
import { withOnly } from "./RequestPath.js"

/**
 * The REST API with its handlers, body checks, error shaping and the approval page, still needing
 * the Authentication that admits its callers: the server's (HttpApiLive) or the SDK's
 * (SdkAuthenticationLive).
 */
export const HttpApiRoutes = Layer.mergeAll(
  HttpApiBuilder.api(HeraldApi).pipe(Layer.provide([PostsLive, DeliveriesLive, AccountsLive, AnalyticsLive, SpecLive, MediaHttpLive, MediaAttachHttpLive])),
  FailuresLive,
  ApprovalPageLive
).pipe(
  Layer.provide([RequestBodyGuardLive, RequestUrlGuardLive]),
  Layer.provide(HmacApprovalLinks)
)

/**
 * The REST API with its handlers, key authentication, rate limits, body checks, error shaping and
 * the approval page. Needs the core ports, ApiKeyStore, RateLimitStore and HttpApiConfig;
 * approval links are signed here (HmacApprovalLinks), so ApprovalLinks is provided, not required.
 */
export const HttpApiLive = HttpApiRoutes.pipe(Layer.provide(AuthenticationLive))

/**
 * The router's own limit on a path parameter (find-my-way's 100 characters) answered a longer id
 * with 404 "no such endpoint"; the request head's 16 KiB is the limit instead, so a long id
 * reaches its schema and is refused with 400 naming it, as any other id that is not one.
 */
const routerConfig = { maxParamLength: 16 * 1024 }

/**
 * HttpApiBuilder.serve, with each request starting from only what serving may read at request time
 * (`withOnly`): the server's scope and the router's default services, which is all its type lets a
 * route need (handlers and middleware hold their services from when they were built). Serves the
 * API layers provided to it on whatever HttpServer is provided, each request observed
 * (`observeRequests`: request id, span, metrics, access log) in place of the platform's own span.
 */
export const serveApi = Layer.scopedDiscard(Effect.gen(function*() {
  const app = yield* HttpRouter.withRouterConfig(HttpApiBuilder.httpApp, routerConfig)
  const server = yield* HttpServer.HttpServer
  yield* withOnly(Scope.Scope, HttpPlatform.HttpPlatform, Etag.Generator, FileSystem.FileSystem, Path.Path)(
    server.serve(app, observeRequests)
  ).pipe(HttpMiddleware.withTracerDisabledWhenEffect(() => true))
})).pipe(Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]))

/** Serves HttpApiLive on whatever HttpServer is provided (NodeHttpServer.layer in the app and tests). */
export const serveHttpApi = serveApi.pipe(Layer.provide(HttpApiLive))

/** A fetch-style handler (Request → Response) over the given routes, with serveApi's router limits. */
export const toWebHandler = <A, E>(routes: Layer.Layer<A | HttpApi.Api, E>) =>
  HttpApiBuilder.toWebHandler(Layer.mergeAll(routes, HttpServer.layerContext, HttpRouter.setRouterConfig(routerConfig)))

/** A fetch-style handler (Request → Response) for embedding in another server, on the given services. */
export const makeWebHandler = <E>(services: Layer.Layer<Layer.Layer.Context<typeof HttpApiLive>, E>) =>
  toWebHandler(HttpApiLive.pipe(Layer.provide(services)))
