import { DateTime, Effect, Layer, Option } from "effect"
import type { ApiKeyId } from "../Ids.js"
import { Principal } from "../Principal.js"
import { ApiKeyNotFound, ApiKeyStore, ApiKeySummary, type NewApiKey } from "../ports/ApiKeyStore.js"
import { RateLimitStore } from "../ports/RateLimitStore.js"

interface StoredKey {
  readonly key: NewApiKey
  readonly revokedAt: DateTime.Utc | null
  readonly lastUsedAt: DateTime.Utc | null
}

const summary = ({ key, lastUsedAt, revokedAt }: StoredKey) =>
  new ApiKeySummary({
    id: key.id,
    projectId: key.projectId,
    name: key.name,
    prefix: key.prefix,
    kind: key.kind,
    scopes: key.scopes,
    rateLimitPerMinute: key.rateLimitPerMinute,
    dailyPostCap: key.dailyPostCap,
    revokedAt,
    lastUsedAt,
    createdAt: key.createdAt
  })

/** API keys in a map keyed by their hash, with the same semantics as the Postgres adapter. */
export class InMemoryApiKeys {
  readonly byHash = new Map<string, StoredKey>()

  private update(id: ApiKeyId, change: (stored: StoredKey) => StoredKey): boolean {
    for (const [hash, stored] of this.byHash) {
      if (stored.key.id === id) {
        this.byHash.set(hash, change(stored))
        return true
      }
    }
    return false
  }

  readonly layer: Layer.Layer<ApiKeyStore> = Layer.sync(ApiKeyStore, () =>
    ApiKeyStore.of({
      create: (key) =>
        Effect.sync(() => {
          const stored = { key, revokedAt: null, lastUsedAt: null }
          this.byHash.set(key.hash, stored)
          return summary(stored)
        }),
      findByHash: (hash) =>
        Effect.sync(() =>
          Option.map(Option.fromNullable(this.byHash.get(hash)), ({ key, revokedAt }) => ({
            principal: new Principal({
              projectId: key.projectId,
              keyId: key.id,
              keyName: key.name,
              kind: key.kind,
              scopes: key.scopes,
              dailyPostCap: key.dailyPostCap
            }),
            revoked: revokedAt !== null,
            rateLimitPerMinute: key.rateLimitPerMinute
          }))
        ),
      list: (projectId) =>
        Effect.sync(() => [...this.byHash.values()].filter(({ key }) => key.projectId === projectId).map(summary)),
      revoke: (projectId, id, at) =>
        Effect.suspend(() => {
          const owned = [...this.byHash.values()].some(({ key }) => key.id === id && key.projectId === projectId)
          return owned
            ? Effect.sync(() => void this.update(id, (stored) => ({ ...stored, revokedAt: stored.revokedAt ?? at })))
            : Effect.fail(new ApiKeyNotFound({ keyId: id }))
        }),
      updateLimits: (projectId, id, limits) =>
        Effect.suspend(() => {
          const owned = [...this.byHash.values()].find(({ key }) => key.id === id && key.projectId === projectId)
          if (owned === undefined) return Effect.fail(new ApiKeyNotFound({ keyId: id }))
          const changed: StoredKey = {
            ...owned,
            key: {
              ...owned.key,
              rateLimitPerMinute: limits.rateLimitPerMinute ?? owned.key.rateLimitPerMinute,
              dailyPostCap: limits.dailyPostCap === undefined ? owned.key.dailyPostCap : limits.dailyPostCap
            }
          }
          this.update(id, () => changed)
          return Effect.succeed(summary(changed))
        }),
      touch: (id, at) => Effect.sync(() => void this.update(id, (stored) => ({ ...stored, lastUsedAt: at })))
    }))

  lastUsedAt(id: ApiKeyId): DateTime.Utc | null {
    return [...this.byHash.values()].find(({ key }) => key.id === id)?.lastUsedAt ?? null
  }
}

const windowMillis = 60_000

/** Fixed one-minute windows per key in a map (one process only; Postgres shares them). */
export const inMemoryRateLimits = (): Layer.Layer<RateLimitStore> =>
  Layer.sync(RateLimitStore, () => {
    const windows = new Map<string, { readonly start: number; count: number }>()
    return RateLimitStore.of({
      hit: (keyId, limit, now) =>
        Effect.sync(() => {
          const start = Math.floor(DateTime.toEpochMillis(now) / windowMillis) * windowMillis
          const current = windows.get(keyId)
          const window = current !== undefined && current.start === start ? current : { start, count: 0 }
          window.count++
          windows.set(keyId, window)
          return {
            limit,
            remaining: Math.max(limit - window.count, 0),
            resetAt: DateTime.unsafeMake(start + windowMillis),
            allowed: window.count <= limit
          }
        })
    })
  })
