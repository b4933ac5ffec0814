import { Context, Effect, Layer, Redacted, Schema } from "effect"
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"

/** The key from configuration is not a 32-byte AES-256 key. Says why, never what it was. */
export class InvalidCredentialsKey extends Schema.TaggedError<InvalidCredentialsKey>()("InvalidCredentialsKey", {
  reason: Schema.String
}) {
  override get message(): string {
    return `credentials key: ${this.reason}`
  }
}

const version = "v1"

/**
 * AES-256-GCM for secrets at rest (platform credentials, webhook signing secrets). Each value gets
 * a fresh 96-bit nonce; the row id is bound as associated data so a ciphertext copied onto
 * another row does not decrypt. Stored as `v1.<nonce>.<tag>.<ciphertext>` in base64url.
 */
export class CredentialsCipher extends Context.Tag("@herald/storage-postgres/CredentialsCipher")<CredentialsCipher, {
  readonly seal: (plaintext: string, rowId: string) => string
  readonly open: (sealed: string, rowId: string) => string
}>() {
  /** key: 32 bytes as base64 or 64 hex characters. */
  static readonly layer = (key: Redacted.Redacted<string>) =>
    Layer.effect(CredentialsCipher, Effect.map(parseKey(Redacted.value(key)), make))
}

const parseKey = (text: string): Effect.Effect<Buffer, InvalidCredentialsKey> => {
  const trimmed = text.trim()
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64")
  return bytes.length === 32
    ? Effect.succeed(bytes)
    : Effect.fail(new InvalidCredentialsKey({ reason: `must be 32 bytes (base64 or 64 hex characters), got ${bytes.length} bytes` }))
}

const make = (key: Buffer) => ({
  seal: (plaintext: string, rowId: string): string => {
    const nonce = randomBytes(12)
    const cipher = createCipheriv("aes-256-gcm", key, nonce)
    cipher.setAAD(Buffer.from(rowId))
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
    return [version, nonce, cipher.getAuthTag(), body].map((part) => typeof part === "string" ? part : part.toString("base64url")).join(".")
  },
  open: (sealed: string, rowId: string): string => {
    const [tag, nonce, authTag, body] = sealed.split(".")
    if (tag !== version || nonce === undefined || authTag === undefined || body === undefined) {
      throw new Error(`sealed value for ${rowId} is not in the ${version} format`)
    }
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64url"))
    decipher.setAAD(Buffer.from(rowId))
    decipher.setAuthTag(Buffer.from(authTag, "base64url"))
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8")
  }
})
