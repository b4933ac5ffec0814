import { openApiDocument } from "../kit/OpenApiDocument.js"

/**
 * The part of Pinterest's official OpenAPI document (pinterest/api-description, v5 5.23.0, MIT
 * licence in pinterest-openapi.LICENSE) that Herald's Pinterest publisher calls, kept as a
 * fixture: pinterest-openapi.json.
 */
export const pinterestOpenApi = openApiDocument(new URL("./pinterest-openapi.json", import.meta.url))

/** The scopes an operation needs, from its pinterest_oauth2 security requirement. */
export const scopesFor = (path: string, method: string): ReadonlyArray<string> =>
  pinterestOpenApi.document.paths[path]?.[method]?.security?.find((requirement) => "pinterest_oauth2" in requirement)?.["pinterest_oauth2"] ?? []
