import { openApiDocument } from "../kit/OpenApiDocument.js"

/**
 * The part of X's OpenAPI document (docs.x.com's openapi.json) that Herald's X publisher uses,
 * kept as a fixture: x-openapi.json.
 */
export const { replySchema, requestSchema, violations } = openApiDocument(new URL("./x-openapi.json", import.meta.url))
