import { createHash, hash, randomBytes, timingSafeEqual } from "node:crypto"
import { type ActorKind, ApiKeyHash, SecretMint } from "@herald/core"
import { Effect, Layer, Redacted } from "effect"

/**
 * API keys: `hk_<kind>_<40 base62 characters>`. The kind is readable in the key so a person can
 * tell an agent's key from a human's at a glance; it is fixed at creation (the stored key row is
 * the authority, never the prefix). 40 base62 characters carry about 238 bits of randomness.
 */
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const secretLength = 40

export const apiKeyPattern = /^hk_(agent|human)_[0-9A-Za-z]{32,}$/

/** Uniform base62 characters from node:crypto (bytes of 248 and above are dropped to avoid modulo bias). */
const randomBase62 = (length: number): string => {
  let out = ""
  while (out.length < length) {
    for (const byte of randomBytes(length)) {
      if (byte < 248 && out.length < length) out += base62[byte % 62]
    }
  }
  return out
}

/** A new key of this kind. Show it once; store only hashApiKey(key) and displayPrefix(key). */
export const generateApiKey = (kind: ActorKind): string => `hk_${kind}_${randomBase62(secretLength)}`

/** The key's SHA-256: what the store keeps and looks keys up by (a hex digest is one by construction, unchecked). */
export const hashApiKey = (key: string): ApiKeyHash =>
  ApiKeyHash.make(hash("sha256", key, "hex"), true)

/** The readable start of a key (kind and 4 secret characters), shown in key lists. */
export const displayPrefix = (key: string): string => {
  const match = /^hk_(agent|human)_/.exec(key)
  return match === null ? key.slice(0, 8) : key.slice(0, match[0].length + 4)
}

/** Constant-time equality of two secrets (lengths are not secret here: both sides are fixed-size MACs or hashes). */
export const secretsEqual = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && timingSafeEqual(a, b)

/** A webhook signing secret: `whsec_` and 256 random bits in base64url. */
const generateWebhookSecret = () => `whsec_${randomBytes(32).toString("base64url")}`

/** SecretMint over node:crypto: the keys and webhook secrets the admin operations hand out. */
export const NodeSecretMint = Layer.succeed(
  SecretMint,
  SecretMint.of({
    apiKey: (kind) =>
      Effect.sync(() => {
        const key = generateApiKey(kind)
        return { key: Redacted.make(key), hash: hashApiKey(key), prefix: displayPrefix(key) }
      }),
    webhookSecret: Effect.sync(() => Redacted.make(generateWebhookSecret())),
    // RFC 7636: a 43-character verifier from 32 random bytes, its challenge BASE64URL(SHA-256(verifier)).
    oauthState: Effect.sync(() => {
      const codeVerifier = randomBytes(32).toString("base64url")
      return {
        state: randomBytes(24).toString("base64url"),
        codeVerifier: Redacted.make(codeVerifier),
        codeChallenge: createHash("sha256").update(codeVerifier).digest("base64url")
      }
    })
  })
)
