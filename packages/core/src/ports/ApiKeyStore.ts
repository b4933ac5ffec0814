import { Context, type DateTime, type Effect, type Option, Schema } from "effect"
import { ApiKeyId, ProjectId } from "../Ids.js"
import { ActorKind, type Principal, Scope } from "../Principal.js"

/** The key's SHA-256 as 64 lowercase hex characters. Hashing happens in the caller; stores only see this. */
export const ApiKeyHash = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/), Schema.brand("ApiKeyHash"))
export type ApiKeyHash = typeof ApiKeyHash.Type

/** 60 requests per minute: the contract's default rate for a key. */
export const defaultRateLimitPerMinute = 60

export interface NewApiKey {
  readonly id: ApiKeyId
  readonly projectId: ProjectId
  readonly name: string
  readonly hash: ApiKeyHash
  /** The first characters of the key, shown so a person can tell keys apart. */
  readonly prefix: string
  readonly kind: ActorKind
  readonly scopes: ReadonlyArray<Scope>
  readonly rateLimitPerMinute: number
  readonly dailyPostCap: number | null
  readonly createdAt: DateTime.Utc
}

/** A key's requests per minute, as created or edited. */
export const RateLimitPerMinute = Schema.Int.pipe(Schema.between(1, 1_000_000))
/** A key's own daily post cap; null: none of its own (the project's default applies). */
export const DailyPostCap = Schema.NullOr(Schema.Int.pipe(Schema.positive()))

/** A key's limits as an admin edits them after creation; an omitted one is kept. */
export const ApiKeyLimits = Schema.Struct({
  rateLimitPerMinute: Schema.optional(RateLimitPerMinute),
  dailyPostCap: Schema.optional(DailyPostCap)
})
export type ApiKeyLimits = typeof ApiKeyLimits.Type

/** What an admin sees of a key: never its hash. */
export class ApiKeySummary extends Schema.Class<ApiKeySummary>("ApiKeySummary")({
  id: ApiKeyId,
  projectId: ProjectId,
  name: Schema.String,
  prefix: Schema.String,
  kind: ActorKind,
  scopes: Schema.Array(Scope),
  rateLimitPerMinute: Schema.Int.pipe(Schema.positive()),
  dailyPostCap: Schema.NullOr(Schema.Int.pipe(Schema.positive())),
  revokedAt: Schema.NullOr(Schema.DateTimeUtc),
  lastUsedAt: Schema.NullOr(Schema.DateTimeUtc),
  createdAt: Schema.DateTimeUtc
}) {}

/** The key behind a presented secret, revoked ones included so the caller can say why it refuses. */
export interface ApiKeyMatch {
  readonly principal: Principal
  readonly revoked: boolean
  readonly rateLimitPerMinute: number
}

export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", {
  keyId: Schema.String
}) {
  override get message(): string {
    return `api key ${this.keyId} not found in this project`
  }
}

export class ApiKeyStore extends Context.Tag("@herald/core/ApiKeyStore")<ApiKeyStore, {
  readonly create: (key: NewApiKey) => Effect.Effect<ApiKeySummary>
  readonly findByHash: (hash: ApiKeyHash) => Effect.Effect<Option.Option<ApiKeyMatch>>
  readonly list: (projectId: ProjectId) => Effect.Effect<ReadonlyArray<ApiKeySummary>>
  readonly revoke: (projectId: ProjectId, id: ApiKeyId, at: DateTime.Utc) => Effect.Effect<void, ApiKeyNotFound>
  /**
   * Changes the key's limits and answers it as it now stands. Every process authenticates with
   * the new ones at once (the same change notice as a revoke).
   */
  readonly updateLimits: (projectId: ProjectId, id: ApiKeyId, limits: ApiKeyLimits) => Effect.Effect<ApiKeySummary, ApiKeyNotFound>
  /** Records that the key was just used (best effort, not part of any request's transaction). */
  readonly touch: (id: ApiKeyId, at: DateTime.Utc) => Effect.Effect<void>
}>() {}
