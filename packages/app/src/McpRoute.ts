import { apiKeyPattern, hashApiKey, HmacApprovalLinks } from "@herald/http-api"
import { McpLive } from "@herald/mcp"
import { Layer } from "effect"

/** The MCP connector at /api/mcp, on the REST server's key rule and approval links: the reference server and createHerald serve it. */
export const McpRoute = McpLive({
  keyHash: (key) => apiKeyPattern.test(key) ? hashApiKey(key) : null,
  version: "1.0"
}).pipe(Layer.provide(HmacApprovalLinks))
