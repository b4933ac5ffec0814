import { Context, type Effect } from "effect"
import type { ApiKeyHash } from "./ApiKeyStore.js"

/**
 * Admin tokens, kept as SHA-256 only (the caller's hashApiKey). The reference server keeps them in
 * its database; whoever holds one manages every project of the instance, and may act on one
 * project's REST API as its operator (makeAuthenticator, docs/api.md "The operator").
 */
export class AdminTokens extends Context.Tag("@herald/core/AdminTokens")<AdminTokens, {
  readonly add: (hash: ApiKeyHash) => Effect.Effect<void>
  readonly isKnown: (hash: ApiKeyHash) => Effect.Effect<boolean>
}>() {}
