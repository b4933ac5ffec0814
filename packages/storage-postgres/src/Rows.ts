import { SocialAccount, Delivery, Media, OutboxEvent, Post, Project } from "@herald/core"
import { Schema } from "effect"

/**
 * Row <-> domain. Rows are decoded through the core schemas (so a bad row is caught, not passed
 * on); nested values sit in JSONB in their encoded form. Timestamps come back from pg as Date.
 */
type Timestamp = Date | string

const iso = (value: Timestamp): string => value instanceof Date ? value.toISOString() : new Date(value).toISOString()
const isoOrNull = (value: Timestamp | null): string | null => value === null ? null : iso(value)
const json = (value: unknown): string | null => value === null ? null : JSON.stringify(value)

export interface PostRow {
  readonly id: string
  readonly project_id: string
  readonly version: number
  readonly status: string
  readonly caption: string | null
  readonly signature: string
  readonly skip_signature: boolean
  readonly account_ids: ReadonlyArray<string>
  readonly media_ids: ReadonlyArray<string>
  readonly scheduled_at: Timestamp | null
  readonly platform_configurations: unknown
  readonly author_key_id: string
  readonly author_kind: string
  readonly decision: unknown
  readonly supersedes: string | null
  readonly superseded_by: string | null
  readonly idempotency_key: string | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const decodePost = Schema.decodeUnknown(Post)
const encodePost = Schema.encodeSync(Post)

export const postFromRow = (row: PostRow) =>
  decodePost({
    id: row.id,
    projectId: row.project_id,
    version: row.version,
    status: row.status,
    caption: row.caption,
    signature: row.signature,
    skipSignature: row.skip_signature,
    accountIds: row.account_ids,
    mediaIds: row.media_ids,
    scheduledAt: isoOrNull(row.scheduled_at),
    platformConfigurations: row.platform_configurations,
    author: { keyId: row.author_key_id, kind: row.author_kind },
    decision: row.decision,
    supersedes: row.supersedes,
    supersededBy: row.superseded_by,
    idempotencyKey: row.idempotency_key,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at)
  })

export const postToRow = (post: Post) => {
  const e = encodePost(post)
  return {
    id: e.id,
    project_id: e.projectId,
    version: e.version,
    status: e.status,
    caption: e.caption,
    signature: e.signature,
    skip_signature: e.skipSignature,
    account_ids: e.accountIds,
    media_ids: e.mediaIds,
    scheduled_at: e.scheduledAt,
    platform_configurations: json(e.platformConfigurations),
    author_key_id: e.author.keyId,
    author_kind: e.author.kind,
    decision: json(e.decision),
    supersedes: e.supersedes,
    superseded_by: e.supersededBy,
    idempotency_key: e.idempotencyKey,
    created_at: e.createdAt,
    updated_at: e.updatedAt
  }
}

export interface DeliveryRow {
  readonly id: string
  readonly post_id: string
  readonly project_id: string
  readonly account_id: string
  readonly platform: string
  readonly username: string
  readonly status: string
  readonly due_at: Timestamp | null
  readonly url: string | null
  readonly platform_post_id: string | null
  readonly error: unknown
  readonly note: unknown
  readonly attempts: unknown
  readonly takedown: unknown
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const decodeDelivery = Schema.decodeUnknown(Delivery)
const encodeDelivery = Schema.encodeSync(Delivery)

export const deliveryFromRow = (row: DeliveryRow) =>
  decodeDelivery({
    id: row.id,
    postId: row.post_id,
    projectId: row.project_id,
    accountId: row.account_id,
    platform: row.platform,
    username: row.username,
    status: row.status,
    dueAt: isoOrNull(row.due_at),
    url: row.url,
    platformPostId: row.platform_post_id,
    error: row.error,
    note: row.note,
    attempts: row.attempts,
    takedown: row.takedown,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at)
  })

/** position keeps the deliveries in the order the post named its accounts. */
export const deliveryToRow = (delivery: Delivery, position: number) => {
  const e = encodeDelivery(delivery)
  return {
    id: e.id,
    post_id: e.postId,
    project_id: e.projectId,
    position,
    account_id: e.accountId,
    platform: e.platform,
    username: e.username,
    status: e.status,
    due_at: e.dueAt,
    url: e.url,
    platform_post_id: e.platformPostId,
    error: json(e.error),
    note: json(e.note),
    attempts: json(e.attempts),
    takedown: json(e.takedown),
    created_at: e.createdAt,
    updated_at: e.updatedAt
  }
}

export interface EventRow {
  readonly id: string
  readonly project_id: string
  readonly kind: string
  readonly data: unknown
  readonly created_at: Timestamp
}

export const eventFromRow = (row: EventRow) =>
  Schema.decodeUnknown(OutboxEvent)({
    id: row.id,
    projectId: row.project_id,
    kind: row.kind,
    data: row.data,
    createdAt: iso(row.created_at)
  })

export const eventToRow = (event: OutboxEvent) => {
  const e = Schema.encodeSync(OutboxEvent)(event)
  return { id: e.id, project_id: e.projectId, kind: e.kind, data: json(e.data), created_at: e.createdAt }
}

export interface ProjectRow {
  readonly id: string
  readonly name: string
  readonly timezone: string
  readonly approval: string
  readonly signature: string
  readonly plan: string
  readonly guardrails: unknown
}

export const projectFromRow = (row: ProjectRow) =>
  Schema.decodeUnknown(Project)({
    id: row.id,
    name: row.name,
    timezone: row.timezone,
    approval: row.approval,
    signature: row.signature,
    plan: row.plan,
    guardrails: row.guardrails
  })

export interface AccountRow {
  readonly id: string
  readonly project_id: string
  readonly platform: string
  readonly username: string
  readonly route: string
  readonly status: string
}

export const accountFromRow = (row: AccountRow) =>
  Schema.decodeUnknown(SocialAccount)({
    id: row.id,
    projectId: row.project_id,
    platform: row.platform,
    username: row.username,
    route: row.route,
    status: row.status
  })

export interface MediaRow {
  readonly id: string
  readonly project_id: string
  readonly kind: string
  readonly mime: string
  readonly bytes: string | number
  readonly filename: string | null
  readonly width: number | null
  readonly height: number | null
  readonly duration_seconds: number | null
  readonly alt_text: string | null
  readonly people_tags: ReadonlyArray<string>
  readonly thumbnail_timestamp_ms: number | null
  readonly storage_key: string
  readonly created_at: Timestamp
}

export const mediaFromRow = (row: MediaRow) =>
  Schema.decodeUnknown(Media)({
    id: row.id,
    projectId: row.project_id,
    kind: row.kind,
    mime: row.mime,
    // int8 arrives as a string through pg
    bytes: Number(row.bytes),
    filename: row.filename,
    width: row.width,
    height: row.height,
    durationSeconds: row.duration_seconds,
    altText: row.alt_text,
    peopleTags: row.people_tags,
    thumbnailTimestampMs: row.thumbnail_timestamp_ms,
    storageKey: row.storage_key,
    createdAt: iso(row.created_at)
  })

export const mediaToRow = (media: Media) => {
  const e = Schema.encodeSync(Media)(media)
  return {
    id: e.id,
    project_id: e.projectId,
    kind: e.kind,
    mime: e.mime,
    bytes: e.bytes,
    filename: e.filename,
    width: e.width,
    height: e.height,
    duration_seconds: e.durationSeconds,
    alt_text: e.altText,
    people_tags: e.peopleTags,
    thumbnail_timestamp_ms: e.thumbnailTimestampMs,
    storage_key: e.storageKey,
    created_at: e.createdAt
  }
}
