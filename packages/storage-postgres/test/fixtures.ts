import { Redacted } from "effect"
import { randomBytes } from "node:crypto"

export { at, newAccount, newEndpoint, newKeyId, newPost, newProject, type PostSpec, t0 } from "@herald/core/storage-contract"

export const credentialsKey = Redacted.make(randomBytes(32).toString("base64"))

/**
 * A schema of its own on the database `url` names, so a file runs beside others on one database
 * and leaves nothing behind: its name, and the url with it as the search path.
 */
export const throwawaySchema = (url: string) => {
  const schema = `herald_test_${randomBytes(6).toString("hex")}`
  const scoped = new URL(url)
  scoped.searchParams.set("options", `-c search_path=${schema}`)
  return { schema, url: scoped.toString() }
}
