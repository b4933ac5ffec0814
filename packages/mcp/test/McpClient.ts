import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"

/** The official SDK client over Streamable HTTP: the key as a Bearer header, or in the path. */
export const connect = async (origin: string, key: string, how: "header" | "path" = "header") => {
  const client = new Client({ name: "herald-test", version: "1.0.0" })
  const url = new URL(how === "header" ? `${origin}/api/mcp` : `${origin}/api/mcp/${key}`)
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: how === "header" ? { headers: { authorization: `Bearer ${key}` } } : {}
  })
  await client.connect(transport)
  return client
}

/** A tool error's body: the REST error body the text carries. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const refusalOf = (result: CallToolResult): any => {
  if (result.isError !== true) throw new Error(`expected a tool error, got ${JSON.stringify(result)}`)
  const [first] = result.content
  if (first?.type !== "text") throw new Error("a tool error carries its body as text")
  return JSON.parse(first.text)
}

/** What a successful call answered as structuredContent. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const resultOf = (result: CallToolResult): any => {
  if (result.isError === true) throw new Error(`expected a result, got the tool error ${JSON.stringify(result.content)}`)
  return result.structuredContent
}
