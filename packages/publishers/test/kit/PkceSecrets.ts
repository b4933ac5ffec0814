import { SecretMint } from "@herald/core"
import { sequentialSecrets } from "@herald/core/memory"
import { Effect, Layer, Redacted } from "effect"
import { createHash, randomBytes } from "node:crypto"

/**
 * sequentialSecrets with a fresh state and PKCE pair per connection: its fixed pair does not
 * hash to its challenge, which a platform (X, an atproto authorization server) checks, and an
 * authorization server may refuse a challenge it saw before.
 */
export const pkceSecrets = Layer.effect(
  SecretMint,
  Effect.map(SecretMint, (sequential) =>
    SecretMint.of({
      ...sequential,
      oauthState: Effect.sync(() => {
        const verifier = randomBytes(32).toString("base64url")
        return {
          state: randomBytes(16).toString("base64url"),
          codeVerifier: Redacted.make(verifier),
          codeChallenge: createHash("sha256").update(verifier).digest("base64url")
        }
      })
    }))
).pipe(Layer.provide(sequentialSecrets()))
