import { HttpApiBuilder, type HttpApp, HttpServer } from "@effect/platform"
import { Layer } from "effect"
import { HeraldApi } from "./Api.js"
import { HmacApprovalLinks } from "./ApprovalLinks.js"
import { ApprovalPageLive } from "./ApprovalPage.js"
import { AuthenticationLive } from "./Authentication.js"
import { FailuresLive } from "./Failures.js"
import { AccountsLive, DeliveriesLive, PostsLive, SpecLive } from "./Handlers.js"
import { MediaAttachHttpLive, MediaHttpLive } from "./media/MediaHttp.js"
import { RequestBodyGuardLive } from "./RequestBody.js"

/**
 * The REST API with its handlers, key authentication, rate limits, body checks, error shaping and
 * the approval page. Needs the core ports, ApiKeyStore, RateLimitStore and HttpApiConfig;
 * approval links are signed here (HmacApprovalLinks), so ApprovalLinks is provided, not required.
 */
export const HttpApiLive = Layer.mergeAll(
  HttpApiBuilder.api(HeraldApi).pipe(Layer.provide([PostsLive, DeliveriesLive, AccountsLive, SpecLive, MediaHttpLive, MediaAttachHttpLive])),
  FailuresLive,
  ApprovalPageLive
).pipe(
  Layer.provide([AuthenticationLive, RequestBodyGuardLive]),
  Layer.provide(HmacApprovalLinks)
)

/** Serves HttpApiLive on whatever HttpServer is provided (NodeHttpServer.layer in the app and tests). */
export const serveHttpApi = (
  middleware?: (app: HttpApp.Default) => HttpApp.Default
) => HttpApiBuilder.serve(middleware).pipe(Layer.provide(HttpApiLive))

/** A fetch-style handler (Request → Response) for embedding in another server, on the given services. */
export const makeWebHandler = <E>(services: Layer.Layer<Layer.Layer.Context<typeof HttpApiLive>, E>) =>
  HttpApiBuilder.toWebHandler(Layer.mergeAll(HttpApiLive, HttpServer.layerContext).pipe(Layer.provide(services)))
