import { Context, type Effect, type Redacted } from "effect"
import type { ActorKind } from "../Principal.js"
import type { ApiKeyHash } from "./ApiKeyStore.js"

/** A new API key: the secret (shown once), the hash the store keeps, and the readable start shown in lists. */
export interface MintedApiKey {
  readonly key: Redacted.Redacted<string>
  readonly hash: ApiKeyHash
  readonly prefix: string
}

/**
 * New secrets for the admin operations. Randomness and hashing are the adapter's (node:crypto),
 * so the core stays free of them; the secrets are Redacted from the moment they exist.
 */
export class SecretMint extends Context.Tag("@herald/core/SecretMint")<SecretMint, {
  readonly apiKey: (kind: ActorKind) => Effect.Effect<MintedApiKey>
  /** A webhook endpoint's signing secret. */
  readonly webhookSecret: Effect.Effect<Redacted.Redacted<string>>
  /**
   * A consent page's one-time `state` and PKCE pair: the verifier (kept until the callback) and
   * its S256 challenge (sent in the consent URL).
   */
  readonly oauthState: Effect.Effect<{
    readonly state: string
    readonly codeVerifier: Redacted.Redacted<string>
    readonly codeChallenge: string
  }>
}>() {}
