import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool as McpTool
} from "@modelcontextprotocol/sdk/types.js"
import type { Authenticator, Principal, RateLimited } from "@herald/core"
import { Cause, Effect, Either, Option, Runtime } from "effect"
import type { McpOptions, McpServices } from "./McpEndpoint.js"
import { isToolCall, type Outcome, type PlainToolCall, plainToolCall, resultReply } from "./PlainToolCall.js"
import { readJson } from "./RequestJson.js"
import { type AnyTool, decodeArguments, jsonSchemaOf, type Refusal, resultOf } from "./Tool.js"
import { tools } from "./Tools.js"

/** Room for upload_media's 5 MB in base64 and the JSON-RPC around it. */
const maxBodyBytes = 8 * 1024 * 1024

const listed: ReadonlyArray<McpTool> = tools.map((tool: AnyTool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: jsonSchemaOf(tool.input),
  outputSchema: jsonSchemaOf(tool.output),
  annotations: { title: tool.title, ...tool.hints }
}))
const byName = new Map<string, AnyTool>(tools.map((tool: AnyTool) => [tool.name, tool]))

const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers })

/** 401 in the REST shape; it never repeats the key (which may have come in the URL). */
const unauthorized = (code: "missing_api_key" | "invalid_api_key" | "revoked_api_key", error: string) =>
  json({ error, code }, 401, { "www-authenticate": "Bearer" })

const rateLimitedBody = (refused: RateLimited) => ({ error: refused.message, code: "rate_limited", retry_after: refused.retryAfterSeconds })

/** A domain refusal: a tool result flagged isError whose text is the REST error body. */
const toolError = (body: Refusal): CallToolResult => ({ content: [{ type: "text", text: JSON.stringify(body) }], isError: true })

const jsonRpcError = (code: number, message: string, status: number) =>
  json({ jsonrpc: "2.0", id: null, error: { code, message } }, status)

/** The key a request presents: the path's, else the Authorization header's Bearer. */
const presentedKey = (pathKey: string | undefined, authorization: string | undefined) => {
  if (pathKey !== undefined) return pathKey
  const [scheme = "", key = "", ...rest] = (authorization ?? "").trim().split(/\s+/)
  return scheme.toLowerCase() === "bearer" && rest.length === 0 ? key : ""
}

/**
 * What the connector answers once a request reaches its path: Streamable HTTP, stateless (no
 * session is kept, so any API process answers any request), JSON replies. Each POST is
 * authenticated and counted against the key's rate limit as a REST request is, then answered by a
 * server made for it, whose tools run core's use cases as the principal. A rate-limited
 * tools/call is a tool error; other rate-limited requests are a 429. This module holds the MCP
 * SDK and is imported on the first request to the path (McpEndpoint.ts).
 */
export const connector = (
  options: McpOptions,
  runtime: Runtime.Runtime<McpServices>,
  { authenticate }: Authenticator,
  /** The path it is served at (McpEndpoint's), named in its refusals. */
  mcpPath: string
) => {
  const runPromise = Runtime.runPromise(runtime)

  /** A tool's output, or its refusal as a tool error; run on the connector's services, in whatever fiber runs it. */
  const callTool = (admitted: Principal | RateLimited, tool: AnyTool, args: unknown): Effect.Effect<Outcome> => {
    if ("_tag" in admitted) return Effect.succeed(Either.left(toolError(rateLimitedBody(admitted))))
    const run: Effect.Effect<unknown, Refusal, McpServices> = Effect.flatMap(decodeArguments(tool, args), (input) => tool.run(admitted, input))
    return run.pipe(
      Effect.matchCauseEffect({
        onSuccess: (output): Effect.Effect<Outcome> => Effect.succeed(Either.right(output)),
        onFailure: (cause) =>
          Option.match(Cause.failureOption(cause), {
            onSome: (refusal) => Effect.succeed(Either.left(toolError(refusal as Refusal))),
            onNone: () =>
              Effect.as(
                Effect.logError(`MCP tool ${tool.name} failed inside Herald`, cause),
                Either.left(toolError({ error: "internal error", code: "internal_error" }))
              )
          })
      }),
      Effect.provide(runtime.context)
    )
  }

  /**
   * A protocol server answers one request at a time (it holds one transport), and making one
   * (its handlers and their schemas) costs about as much as the request: servers are kept
   * between requests, each reconnected to the next request's transport, as many as are busy at once.
   */
  const idle: Array<{ readonly server: Server; admitted: Principal | RateLimited | null }> = []
  const checkout = () => {
    const kept = idle.pop()
    if (kept !== undefined) return kept
    const made: { readonly server: Server; admitted: Principal | RateLimited | null } = {
      server: new Server({ name: "herald", version: options.version }, { capabilities: { tools: { listChanged: false } } }),
      admitted: null
    }
    made.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...listed] }))
    made.server.setRequestHandler(CallToolRequestSchema, (call) => {
      if (made.admitted === null) throw new McpError(ErrorCode.InternalError, "no caller")
      const tool = byName.get(call.params.name)
      if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `no tool named ${call.params.name}; tools/list names the 12 tools`)
      return runPromise(Effect.map(callTool(made.admitted, tool, call.params.arguments), Either.match({ onLeft: (error) => error, onRight: (output) => resultOf(tool, output) })))
    })
    return made
  }

  const answer = (admitted: Principal | RateLimited, body: unknown, request: HttpServerRequest.HttpServerRequest) =>
    Effect.promise(async () => {
      const kept = checkout()
      kept.admitted = admitted
      const server = kept.server
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      await server.connect(transport)
      try {
        // The URL is a placeholder: the real one may carry the key, and nothing downstream needs it.
        const web = new Request(`http://herald.invalid${mcpPath}`, {
          method: "POST",
          headers: Object.fromEntries(
            ["accept", "content-type", "mcp-protocol-version"].flatMap((name) =>
              request.headers[name] === undefined ? [] : [[name, request.headers[name]!]])
          )
        })
        const reply = await transport.handleRequest(web, { parsedBody: body })
        return { status: reply.status, type: reply.headers.get("content-type"), text: await reply.text() }
      } finally {
        await server.close()
        kept.admitted = null
        idle.push(kept)
      }
    }).pipe(Effect.map(({ status, text, type }) =>
      text === ""
        ? HttpServerResponse.empty({ status })
        : HttpServerResponse.text(text, { status, contentType: type ?? "application/json" })))

  /** A plain tools/call of a tool Herald has: its result, framed as the SDK frames it. */
  const answerPlain = (admitted: Principal | RateLimited, call: PlainToolCall, tool: AnyTool) =>
    Effect.map(
      callTool(admitted, tool, call.arguments),
      (outcome) => {
        const reply = resultReply(call, tool, outcome)
        return HttpServerResponse.raw(reply.text, { status: 200, contentType: "application/json", contentLength: reply.bytes })
      }
    )

  const handle = (pathKey: string | undefined) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = presentedKey(pathKey, request.headers.authorization)
      if (key === "") return unauthorized("missing_api_key", `missing API key: send Authorization: Bearer <key>, or use ${mcpPath}/<key>`)
      const hash = options.keyHash(key)
      if (hash === null) return unauthorized("invalid_api_key", "invalid API key")
      const admitted = yield* authenticate(hash).pipe(
        // Provenance: what the key does here is recorded as done through MCP.
        Effect.map(({ principal }) => principal.via("mcp") as Principal | RateLimited),
        Effect.catchTag("RateLimited", (refused) => Effect.succeed(refused)),
        Effect.either
      )
      if (admitted._tag === "Left") {
        return unauthorized(admitted.left._tag === "ApiKeyRevoked" ? "revoked_api_key" : "invalid_api_key", admitted.left.message)
      }
      const body = yield* readJson(request, maxBodyBytes)
      if (Option.isNone(body)) return jsonRpcError(ErrorCode.ParseError, "the body is not UTF-8 JSON (or is larger than 8 MB)", 400)
      if ("_tag" in admitted.right && !isToolCall(body.value)) {
        return json(rateLimitedBody(admitted.right), 429, { "retry-after": String(admitted.right.retryAfterSeconds) })
      }
      const plain = plainToolCall(request.headers, body.value)
      if (plain?._tag === "InvalidToolCall") {
        return json({ jsonrpc: "2.0", id: plain.id, error: { code: ErrorCode.InvalidParams, message: plain.message } }, 200)
      }
      const tool = plain === null ? undefined : byName.get(plain.name)
      return yield* plain !== null && tool !== undefined
        ? answerPlain(admitted.right, plain, tool)
        : answer(admitted.right, body.value, request)
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.as(
          Effect.logError("MCP request failed inside Herald", cause),
          json({ error: "internal error", code: "internal_error" }, 500)
        )
      )
    )

  // Stateless: no server-to-client stream to open (GET) and no session to end (DELETE).
  const notAllowed = Effect.succeed(
    json({ jsonrpc: "2.0", id: null, error: { code: ErrorCode.ConnectionClosed, message: "POST only: this connector is stateless" } }, 405, { allow: "POST" })
  )

  return { handle, notAllowed }
}
