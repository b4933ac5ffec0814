import { HttpApiBuilder, HttpRouter } from "@effect/platform"
import { type ApiKeyHash, type ApiKeyStore, makeAuthenticator, type RateLimitStore } from "@herald/core"
import { Effect } from "effect"
import type { ToolServices } from "./Tool.js"
import type { tools } from "./Tools.js"

/** What the connector needs from its host beside the core's ports. */
export interface McpOptions {
  /** The stored hash of a presented key, or null when the text cannot be a key (the REST server's rule). */
  readonly keyHash: (key: string) => ApiKeyHash | null
  /** The version this server reports in initialize. */
  readonly version: string
}

export type McpServices = ToolServices<typeof tools[number]> | ApiKeyStore | RateLimitStore

/** The MCP path; a key may follow it as one more segment for clients that cannot set headers. */
export const mcpPath = "/api/mcp" as const
const keyedPath = `${mcpPath}/:key` as const

/**
 * The connector's routes. The protocol itself (the MCP SDK, the tools' JSON schemas, the protocol
 * servers: McpProtocol.ts) is imported on the first request to the path, once, not at start: a
 * server nobody reaches over MCP never holds the SDK's code (bench/README.md, Footprint).
 */
export const McpLive = (options: McpOptions) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const runtime = yield* Effect.runtime<McpServices>()
      const authenticator = yield* makeAuthenticator
      const protocol = yield* Effect.cached(
        Effect.map(Effect.promise(() => import("./McpProtocol.js")), ({ connector }) => connector(options, runtime, authenticator, mcpPath))
      )
      const handle = (pathKey: string | undefined) => Effect.flatMap(protocol, ({ handle }) => handle(pathKey))
      const notAllowed = Effect.flatMap(protocol, ({ notAllowed }) => notAllowed)
      yield* router.post(mcpPath, handle(undefined))
      yield* router.post(keyedPath, Effect.flatMap(HttpRouter.params, (params) => handle(params.key ?? "")))
      for (const path of [mcpPath, keyedPath]) {
        yield* router.get(path, notAllowed)
        yield* router.del(path, notAllowed)
      }
    })
  )
