import {
  checkStoredText,
  type DomainError,
  errorBody,
  type ErrorBody,
  issueViolations,
  maxJsonDepth,
  type Principal,
  refusedFieldsBody
} from "@herald/core"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Either, JSONSchema, ParseResult, Schema } from "effect"

/** A tool's refusal: the REST error body ({ error, code } and what the code carries), sent as a tool error. */
export type Refusal = ErrorBody | { readonly error: string; readonly code: string; readonly [extra: string]: unknown }

/** What a client may assume of a tool (MCP tool annotations), stated truthfully per tool. */
export interface ToolHints {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  /** Whether the tool reaches beyond Herald (a social network, a URL on the internet). */
  readonly openWorldHint: boolean
}

/**
 * One MCP tool: its input and result as Schemas (the JSON Schemas the client sees are made from
 * them), and what it runs: a core use case, as the REST endpoint does.
 */
export interface Tool<I, O, R> {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly input: Schema.Schema<I, any> // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly output: Schema.Schema<O, any> // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly hints: ToolHints
  readonly run: (principal: Principal, input: I) => Effect.Effect<O, Refusal, R>
  /** The short text rendering beside structuredContent. */
  readonly text: (output: O) => string
  /**
   * For a result the use case hands out again while it is unchanged: the object it hands out again
   * and what else the result is made of (core's `keptBy`), so its JSON is kept as REST keeps its reply's.
   */
  readonly kept?: (output: O) => { readonly owner: object; readonly parts: ReadonlyArray<unknown> }
  /** Set where the use case judges stored text per item (bulk rows), as REST's bulk endpoint leaves it to. */
  readonly storedTextPerItem?: true
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any, any, any>
export type ToolServices<T extends AnyTool> = T extends Tool<infer _I, infer _O, infer R> ? R : never

export const tool = <I, O, R>(definition: Tool<I, O, R>): Tool<I, O, R> => definition

/** A domain error as its REST body (core's errorBody), as a refusal. */
export const refuse = (error: DomainError): Effect.Effect<never, Refusal> => Effect.flatMap(errorBody(error), Effect.fail)

/** Arguments are read as REST reads a body: every invalid field reported, unknown fields refused. */
const strict = { errors: "all", onExcessProperty: "error" } as const

/**
 * The tool's arguments, judged as REST judges a body: nested past maxJsonDepth (body_too_deep),
 * holding text that cannot be stored (invalid_request naming each field, unless the tool judges it
 * per item), then decoded, or an invalid_request refusal naming every field at fault (REST's 400
 * body). Decoded synchronously: the input schemas are plain data, and the Effect decoder cost
 * several times as much on every call.
 */
export const decodeArguments = <I>(tool: Tool<I, unknown, unknown>, args: unknown): Effect.Effect<I, Refusal> => {
  const value = args ?? {}
  const check = checkStoredText(value)
  if (check._tag === "TooDeep") {
    return Effect.fail({ error: `the arguments nest objects and arrays deeper than ${maxJsonDepth} levels (at ${check.field})`, code: "body_too_deep" })
  }
  if (tool.storedTextPerItem !== true && check.violations.length > 0) {
    return Effect.fail({ ...refusedFieldsBody(check.violations), code: "invalid_request" })
  }
  return Either.match(ParseResult.decodeUnknownEither(tool.input)(value, strict), {
    onLeft: (issue) =>
      Effect.fail({ ...refusedFieldsBody(issueViolations(ParseResult.ArrayFormatter.formatIssueSync(issue))), code: "invalid_request" }),
    onRight: Effect.succeed
  })
}

/** A tool's result: its output as structuredContent, beside the tool's short text rendering of it. */
export const resultOf = <O>(tool: Tool<any, O, any>, output: O): CallToolResult => ({ // eslint-disable-line @typescript-eslint/no-explicit-any
  content: [{ type: "text", text: tool.text(output) }],
  structuredContent: output as Record<string, unknown>
})

/**
 * Effect marks some schemas with a fixed $id (Schema.Unknown is "/schemas/unknown"); a document
 * using one twice has two schemas of one $id, which validators refuse. The $id says nothing here.
 */
const withoutIds = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutIds)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).filter(([key]) => key !== "$id").map(([key, inner]) => [key, withoutIds(inner)]))
    : value

/** A Schema as the JSON Schema object an MCP client reads (inputSchema and outputSchema must be objects). */
export const jsonSchemaOf = (schema: Schema.Schema.Any): { readonly type: "object"; readonly [key: string]: unknown } => {
  const { $schema: _, ...rest } = withoutIds(JSONSchema.make(schema)) as Record<string, unknown>
  return { ...rest, type: "object" }
}
