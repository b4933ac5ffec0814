import { DateTime, Effect, type Redacted } from "effect"
import { ApiKeyId, type ProjectId } from "../../Ids.js"
import type { ActorKind, Scope } from "../../Principal.js"
import { type ApiKeyLimits, ApiKeyStore, type ApiKeySummary, defaultRateLimitPerMinute } from "../../ports/ApiKeyStore.js"
import { IdGenerator } from "../../ports/IdGenerator.js"
import { SecretMint } from "../../ports/SecretMint.js"
import { getProject } from "./Projects.js"

export interface ApiKeySettings {
  readonly name: string
  readonly kind: ActorKind
  readonly scopes: ReadonlyArray<Scope>
  /** Default: the contract's 60. */
  readonly rateLimitPerMinute?: number
  /** Default: no cap of the key's own. */
  readonly dailyPostCap?: number | null
}

/** A key just made: what an admin sees of it, and the key itself, shown this once. */
export interface CreatedApiKey {
  readonly summary: ApiKeySummary
  readonly key: Redacted.Redacted<string>
}

export const listApiKeys = (projectId: ProjectId) =>
  Effect.zipRight(getProject(projectId), Effect.flatMap(ApiKeyStore, (store) => store.list(projectId)))

export const createApiKey = Effect.fnUntraced(function*(projectId: ProjectId, settings: ApiKeySettings) {
  yield* getProject(projectId)
  const minted = yield* Effect.flatMap(SecretMint, (mint) => mint.apiKey(settings.kind))
  const store = yield* ApiKeyStore
  const summary = yield* store.create({
    id: ApiKeyId.make(yield* Effect.flatMap(IdGenerator, (ids) => ids.uuid)),
    projectId,
    name: settings.name,
    hash: minted.hash,
    prefix: minted.prefix,
    kind: settings.kind,
    scopes: [...new Set(settings.scopes)],
    rateLimitPerMinute: settings.rateLimitPerMinute ?? defaultRateLimitPerMinute,
    dailyPostCap: settings.dailyPostCap ?? null,
    createdAt: yield* DateTime.now
  })
  return { summary, key: minted.key } satisfies CreatedApiKey
})

/**
 * Edits the key's rate limit and daily cap after creation (the contract's "editable per key"); the
 * running limiter applies them from the key's next request, in every process.
 */
export const updateApiKeyLimits = Effect.fnUntraced(function*(projectId: ProjectId, id: ApiKeyId, limits: ApiKeyLimits) {
  yield* getProject(projectId)
  return yield* Effect.flatMap(ApiKeyStore, (store) => store.updateLimits(projectId, id, limits))
})

/** Revokes the key (revoking it again keeps the first date) and answers it as it now stands. */
export const revokeApiKey = Effect.fnUntraced(function*(projectId: ProjectId, id: ApiKeyId) {
  yield* getProject(projectId)
  const store = yield* ApiKeyStore
  yield* store.revoke(projectId, id, yield* DateTime.now)
  const revoked = (yield* store.list(projectId)).find((key) => key.id === id)
  return revoked === undefined ? yield* Effect.dieMessage(`revoked key ${id} vanished`) : revoked
})
