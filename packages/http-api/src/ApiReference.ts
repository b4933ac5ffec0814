import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** Where the API reference page is served. */
export const apiReferencePath = "/docs" as const

/**
 * GET /docs: the REST API's reference page (Scalar) over the OpenAPI document GET
 * /api/v1/openapi.json serves (the same `OpenApi.fromApi(HeraldApi)`, finished alike). The page
 * carries Scalar's script inline, as @effect/platform ships it, and asks for no fonts from
 * Scalar's servers, so it loads with no network beyond Herald itself (an air-gapped operator's
 * browser, a dashboard behind a strict content policy).
 *
 * That script is 3 MB of source: it is loaded, and the page made, on the first request for it
 * (`ApiReferencePage.ts`, imported then), not by every start of a server that may never serve it
 * (bench/README.md, Footprint).
 */
export const ApiReferenceLive = HttpApiBuilder.Router.use((router) =>
  Effect.flatMap(
    Effect.cached(Effect.promise(() => import("./ApiReferencePage.js").then((module) => module.renderApiReference(apiReferencePath)))),
    (page) => router.get(apiReferencePath, Effect.map(page, (html) => HttpServerResponse.html(html)))
  )
)
