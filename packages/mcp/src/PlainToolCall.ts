import { keptBy } from "@herald/core"
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  JSONRPCRequestSchema,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS
} from "@modelcontextprotocol/sdk/types.js"
import { Either } from "effect"
import { type AnyTool, resultOf } from "./Tool.js"

/**
 * A plain tools/call: one well-formed JSON-RPC request calling a tool, with the headers the SDK's
 * Streamable HTTP transport accepts. Such a request is answered without the SDK's transport and
 * protocol server, which cost about twice the rest of a cheap call: on every message they run
 * type guards that fail by design (is it an initialize, is it a response), and a failing zod parse
 * builds an error of about 40 µs each (bench/README.md, MCP). Whatever else comes (initialize,
 * tools/list, a batch, a task, a header or message the transport refuses) still goes through the
 * SDK, which answers it or names what is wrong; the decision here is made by the SDK's own
 * schemas and header rules, so nothing goes this way that the SDK would have answered otherwise.
 */
export interface PlainToolCall {
  readonly _tag: "PlainToolCall"
  readonly id: RequestId
  readonly name: string
  readonly arguments: unknown
}

type Headers = Readonly<Record<string, string | undefined>>

/** The transport's header rules (Accept lists both reply types, a JSON body, a known protocol version). */
const acceptedHeaders = (headers: Headers) => {
  const accept = headers.accept
  const version = headers["mcp-protocol-version"]
  return accept !== undefined && accept.includes("application/json") && accept.includes("text/event-stream") &&
    isJsonContentType(headers["content-type"]) &&
    (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version))
}

/** Whether a body is a tools/call (well-formed or not). */
export const isToolCall = (body: unknown) =>
  typeof body === "object" && body !== null && (body as { readonly method?: unknown }).method === "tools/call"

/**
 * A single tools/call, with headers the transport accepts, whose params are not a tool call's
 * (arguments that are not an object, a name that is not a string): its id and what is wrong, for
 * JSON-RPC's invalid params (-32602). The SDK parses them before its own check of them and answers
 * an internal error (-32603) carrying the parser's dump.
 */
export interface InvalidToolCall {
  readonly _tag: "InvalidToolCall"
  readonly id: RequestId
  readonly message: string
}

/** The request as a plain tools/call, or as one whose params are invalid, or null when the SDK should read it. */
export const plainToolCall = (headers: Headers, body: unknown): PlainToolCall | InvalidToolCall | null => {
  // Checked first so that other methods never pay for a failing parse.
  if (!isToolCall(body) || !acceptedHeaders(headers)) return null
  const message = JSONRPCRequestSchema.safeParse(body)
  if (!message.success) return null
  const call = CallToolRequestSchema.safeParse(body)
  if (!call.success) {
    const issue = call.error.issues[0]!
    return { _tag: "InvalidToolCall", id: message.data.id, message: `invalid params: ${issue.path.join(".")}: ${issue.message}` }
  }
  if (call.data.params.task !== undefined) return null
  return { _tag: "PlainToolCall", id: message.data.id, name: call.data.params.name, arguments: call.data.params.arguments }
}

/** What a tool call came to: the tool's output, or a tool error already framed as a result. */
export type Outcome = Either.Either<unknown, CallToolResult>

/** A reply's JSON up to its id, with its length in UTF-8 bytes. */
interface Head {
  readonly text: string
  readonly bytes: number
}

const keptHeads = keptBy<Head>()

/** The reply up to its id, as the SDK's transport writes it in JSON mode (result, then jsonrpc, then id). */
const head = (result: CallToolResult): Head => {
  const text = `{"result":${JSON.stringify(result)},"jsonrpc":"2.0","id":`
  return { text, bytes: Buffer.byteLength(text) }
}

/**
 * The JSON-RPC reply carrying a tool's result, as text with its length in bytes. For an output the
 * tool says is kept (`Tool.kept`), its reply up to the id (the text rendering and structuredContent
 * included) is made once while it is unchanged, as REST keeps its reply's bytes: a call then costs
 * its id. It stays text, written by node:http as it is: bytes would be a copy of the whole reply
 * per call, memory outside the JS heap whose growth forces full collections.
 */
export const resultReply = (call: PlainToolCall, tool: AnyTool, outcome: Outcome): Head => {
  const id = `${JSON.stringify(call.id)}}`
  const made = Either.match(outcome, {
    onLeft: head,
    onRight: (output) => {
      const kept = tool.kept?.(output)
      return kept === undefined ? head(resultOf(tool, output)) : keptHeads(kept.owner, kept.parts, () => head(resultOf(tool, output)))
    }
  })
  return { text: made.text + id, bytes: made.bytes + Buffer.byteLength(id) }
}
