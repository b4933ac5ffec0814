import { createHerald, HeraldError } from "@herald/app"
import express from "express"
import type { AddressInfo } from "node:net"

/**
 * An Express service with Herald inside: Herald's REST, admin and MCP routes under /herald, and a
 * route of the service's own that posts through the SDK with the demo's agent key.
 */
export const start = async (options: { readonly port?: number; readonly dataDir?: string; readonly agentKey?: string } = {}) => {
  const app = express()
  const server = app.listen(options.port ?? 3000)
  await new Promise((resolve) => server.once("listening", resolve))
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`
  const herald = await createHerald({ publicUrl: `${origin}/herald`, dataDir: options.dataDir ?? "./.herald", demo: true })
  // The demo's keys are made on the first start only (an empty data directory); later starts are
  // given the agent key, which the first start printed.
  const agentKey = herald.demoCredentials?.agent_key ?? options.agentKey
  if (agentKey === undefined) {
    await herald.close()
    await new Promise((resolve) => server.close(resolve))
    throw new Error("this data directory's demo keys were made at its first start: set HERALD_AGENT_KEY to the agent key it printed")
  }

  app.use(herald.express({ prefix: "/herald" })) // before the body parser: Herald reads its own bodies
  app.use(express.json())
  app.post("/announce", async (request, response) => {
    try {
      const post = await herald.api(agentKey).posts.create({
        payload: { caption: String(request.body?.text ?? ""), social_accounts: ["x:herald_demo"] }
      })
      response.status(201).json(post)
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error
      response.status(error.status).json({ error: error.message, code: error.code, violations: error.details.violations })
    }
  })

  const close = async () => {
    await herald.close()
    await new Promise((resolve) => server.close(resolve))
  }
  return { origin, herald, close }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { origin, herald, close } = await start({ port: Number(process.env.PORT ?? 3000), agentKey: process.env.HERALD_AGENT_KEY })
  if (herald.demoCredentials !== null) {
    console.log(`first start: demo agent key ${herald.demoCredentials.agent_key} (shown once; give it as HERALD_AGENT_KEY on later starts)`)
  }
  console.log(`listening on ${origin}: POST /announce {"text": "..."}, Herald under /herald`)
  process.once("SIGTERM", () => void close())
  process.once("SIGINT", () => void close())
}
