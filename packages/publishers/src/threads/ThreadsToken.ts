/** A Threads account's token as Herald stores it (meta/UserToken). */
import type { HttpClient } from "@effect/platform"
import type { AccountTokens, MediaStorage, PublishCheckpoints } from "@herald/core"
import { userTokens } from "../meta/UserToken.js"

export { StoredToken } from "../meta/UserToken.js"

/** What Threads' adapters run on, captured when the route is built. */
export type Needs = HttpClient.HttpClient | AccountTokens | MediaStorage | PublishCheckpoints

export const { credentialsUnusable, tokenOf, withToken } = userTokens("Threads")
