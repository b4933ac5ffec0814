import createClient from "openapi-fetch"
import type { paths } from "./herald-api.js"

/**
 * openapi-fetch over the types generated from Herald's served document (src/herald-api.d.ts,
 * `npm run generate`): paths, bodies, replies and error bodies are typed, no Herald package needed.
 */
export const announce = async (baseUrl: string, apiKey: string, caption: string) => {
  const herald = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${apiKey}` } })
  const { data, error, response } = await herald.POST("/api/v1/posts", {
    body: { caption, social_accounts: ["x:herald_demo"] }
  })
  if (error !== undefined) return { status: response.status, code: error.code, error: error.error }
  const listed = await herald.GET("/api/v1/posts", { params: { query: { status: data.status, limit: 5 } } })
  return { status: response.status, id: data.id, listed: listed.data?.data.map((post) => post.id) ?? [] }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await announce(process.env.HERALD_URL ?? "http://localhost:3000", process.env.HERALD_KEY ?? "", process.argv[2] ?? "Hello"))
}
