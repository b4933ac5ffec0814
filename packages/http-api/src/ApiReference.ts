import { HttpApi, HttpApiScalar } from "@effect/platform"
import { Context, Layer } from "effect"
import { HeraldApi } from "./Api.js"

/** Where the API reference page is served. */
export const apiReferencePath = "/docs" as const

/**
 * GET /docs: the REST API's reference page (Scalar) over the OpenAPI document GET
 * /api/v1/openapi.json serves (the same `OpenApi.fromApi(HeraldApi)`, finished alike). The page
 * carries Scalar's script inline, as @effect/platform ships it, and asks for no fonts from
 * Scalar's servers, so it loads with no network beyond Herald itself (an air-gapped operator's
 * browser, a dashboard behind a strict content policy).
 */
export const ApiReferenceLive = HttpApiScalar.layer({
  path: apiReferencePath,
  scalar: { withDefaultFonts: false }
}).pipe(
  // The Api service holds an API with its groups' types erased, as HttpApiBuilder.api provides it.
  Layer.provide(Layer.succeed(HttpApi.Api, { api: HeraldApi as unknown as Context.Tag.Service<HttpApi.Api>["api"], context: Context.empty() }))
)
