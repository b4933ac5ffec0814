import { randomBytes } from "node:crypto"
import type { ApiKeyHash } from "@herald/core"
import { Context, type Effect } from "effect"

/**
 * Admin tokens, kept as SHA-256 only (hashApiKey). The reference server keeps them in its
 * database; whoever holds one manages every project of the instance.
 */
export class AdminTokens extends Context.Tag("@herald/http-api/AdminTokens")<AdminTokens, {
  readonly add: (hash: ApiKeyHash) => Effect.Effect<void>
  readonly isKnown: (hash: ApiKeyHash) => Effect.Effect<boolean>
}>() {}

export const adminTokenPattern = /^hk_admin_[0-9A-Za-z_-]{40,}$/

/** A new admin token: `hk_admin_` and 256 random bits in base64url. Show it once; store hashApiKey(token). */
export const generateAdminToken = (): string => `hk_admin_${randomBytes(32).toString("base64url")}`
