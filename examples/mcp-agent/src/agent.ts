import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"

/**
 * What an agent does through Herald's MCP connector (/api/mcp) with the official MCP client: list
 * its tools, look up the accounts, draft a post. An agent key's post waits for a person's approval.
 */
export const draftAnnouncement = async (heraldUrl: string, agentKey: string, caption: string) => {
  const client = new Client({ name: "example-agent", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${heraldUrl}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${agentKey}` } }
  }))
  try {
    const tools = (await client.listTools()).tools.map((tool) => tool.name)
    const accounts = await client.callTool({ name: "list_accounts", arguments: {} })
    // A text-only post: an X account (Instagram, TikTok, YouTube and Pinterest need media).
    const account = (accounts.structuredContent as { data: ReadonlyArray<{ ref: string }> }).data.find((row) => row.ref.startsWith("x:"))!.ref
    const created = await client.callTool({ name: "create_post", arguments: { caption, social_accounts: [account] } })
    return { tools, account, created: created.isError === true ? created.content : created.structuredContent }
  } finally {
    await client.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await draftAnnouncement(process.env.HERALD_URL ?? "http://localhost:3000", process.env.HERALD_KEY ?? "", process.argv[2] ?? "Hello")
  console.log(JSON.stringify(result, null, 2))
}
