import {
  type AccountId,
  AccountReport,
  AccountStatus,
  ActorKind,
  type ApiKeyId,
  ApprovalMode,
  Attempt,
  ConnectionRoute,
  Decision,
  Delivery,
  DeliveryError,
  type DeliveryId,
  DeliveryNote,
  DeliveryStatus,
  GuardrailSettings,
  Media,
  type MediaId,
  OutboxEvent,
  PlanStatus,
  Platform,
  PlatformConfigurations,
  Post,
  type PostId,
  PostStatus,
  Project,
  type ProjectId,
  SocialAccount,
  Surface,
  Takedown
} from "@herald/core"
import { DateTime, Either, type ParseResult, Schema } from "effect"

/**
 * Row <-> domain. The column types already guarantee most of a row (uuid, integer, boolean,
 * timestamptz, arrays, NOT NULL), so those columns map straight onto the domain classes:
 * re-validating them through each class's whole schema showed in every post listing
 * (bench/README.md, HTTP: rows mapped onto the domain classes).
 * What the database does not constrain (text columns holding a literal, and JSONB, which holds
 * nested values in their encoded form) is decoded through a schema compiled once, which reads
 * those columns off the row by name, so a bad row is still a ParseError (a defect at the port),
 * never a wrong value passed on. Timestamps come back from pg as Date (a string through some drivers).
 */
type Timestamp = Date | string

const instant = (value: Timestamp): DateTime.Utc => DateTime.unsafeMake(value)
const instantOrNull = (value: Timestamp | null): DateTime.Utc | null => value === null ? null : instant(value)
const iso = (value: DateTime.Utc): string => DateTime.formatIso(value)
const isoOrNull = (value: DateTime.Utc | null): string | null => value === null ? null : iso(value)
const json = (value: unknown): string | null => value === null ? null : JSON.stringify(value)

export interface PostRow {
  readonly id: PostId
  readonly project_id: ProjectId
  readonly version: number
  readonly status: string
  readonly caption: string | null
  readonly signature: string
  readonly skip_signature: boolean
  readonly account_ids: ReadonlyArray<AccountId>
  readonly media_ids: ReadonlyArray<MediaId>
  readonly scheduled_at: Timestamp | null
  readonly platform_configurations: unknown
  readonly author_key_id: ApiKeyId
  readonly author_kind: string
  readonly author_key_name: string | null
  readonly author_surface: string | null
  readonly origin_key_id: ApiKeyId
  readonly origin_key_name: string | null
  readonly origin_kind: string
  readonly origin_surface: string | null
  readonly decision: unknown
  readonly supersedes: PostId | null
  readonly superseded_by: PostId | null
  readonly idempotency_key: string | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const NullableDecision = Schema.NullOr(Decision)
const encodeDecision = Schema.encodeSync(NullableDecision)

const NullableSurface = Schema.NullOr(Surface)

const PostColumns = Schema.Struct({
  status: PostStatus,
  author_kind: ActorKind,
  author_surface: NullableSurface,
  origin_kind: ActorKind,
  origin_surface: NullableSurface,
  platform_configurations: PlatformConfigurations,
  decision: NullableDecision
})
const decodePostColumns = Schema.decodeUnknownEither(PostColumns)

/**
 * A literal column's values, to check it without a parse. Rows whose every checked column holds
 * such a literal, and whose JSONB columns hold only values valid as they are (null where the column
 * may be null, no attempts, no platform configuration), are taken without the schema: what the
 * dispatcher reads is nearly always such a row, and the schema pass cost more than the rest of the
 * read. Any other row goes through the schema, which decodes it or names what is wrong.
 */
const literals = <const L extends ReadonlyArray<string>>(schema: { readonly literals: L }) =>
  new Set<string>(schema.literals) as ReadonlySet<unknown>

const postStatuses = literals(PostStatus)
const actorKinds = literals(ActorKind)
const surfaces = new Set<unknown>([...Surface.literals, null])
const platforms = literals(Platform)
const deliveryStatuses = literals(DeliveryStatus)

const isEmptyObject = (value: unknown) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  for (const _ in value) return false
  return true
}

const plainPost = (row: PostRow) =>
  postStatuses.has(row.status) && actorKinds.has(row.author_kind) && actorKinds.has(row.origin_kind) &&
  surfaces.has(row.author_surface) && surfaces.has(row.origin_surface) && row.decision === null &&
  isEmptyObject(row.platform_configurations)

export const postFromRow = (row: PostRow): Either.Either<Post, ParseResult.ParseError> =>
  Either.map(plainPost(row) ? Either.right(row as PostRow & Schema.Schema.Type<typeof PostColumns>) : decodePostColumns(row), (valid) =>
    Post.fromValid({
      id: row.id,
      projectId: row.project_id,
      version: row.version,
      status: valid.status,
      caption: row.caption,
      signature: row.signature,
      skipSignature: row.skip_signature,
      accountIds: row.account_ids,
      mediaIds: row.media_ids,
      scheduledAt: instantOrNull(row.scheduled_at),
      platformConfigurations: valid.platform_configurations,
      author: { keyId: row.author_key_id, keyName: row.author_key_name, kind: valid.author_kind, surface: valid.author_surface },
      origin: { keyId: row.origin_key_id, keyName: row.origin_key_name, kind: valid.origin_kind, surface: valid.origin_surface },
      decision: valid.decision,
      supersedes: row.supersedes,
      supersededBy: row.superseded_by,
      idempotencyKey: row.idempotency_key,
      createdAt: instant(row.created_at),
      updatedAt: instant(row.updated_at)
    }))

/**
 * A post's columns, JSONB ones as values (for a JSON parameter read by json_populate_record). A Post
 * is valid by construction; platform_configurations has no transformation, so it is its encoded form.
 */
export const postColumns = (post: Post) => ({
  id: post.id,
  project_id: post.projectId,
  version: post.version,
  status: post.status,
  caption: post.caption,
  signature: post.signature,
  skip_signature: post.skipSignature,
  account_ids: post.accountIds,
  media_ids: post.mediaIds,
  scheduled_at: isoOrNull(post.scheduledAt),
  platform_configurations: post.platformConfigurations as unknown,
  author_key_id: post.author.keyId,
  author_kind: post.author.kind,
  author_key_name: post.author.keyName,
  author_surface: post.author.surface,
  origin_key_id: post.origin.keyId,
  origin_key_name: post.origin.keyName,
  origin_kind: post.origin.kind,
  origin_surface: post.origin.surface,
  decision: encodeDecision(post.decision) as unknown,
  supersedes: post.supersedes,
  superseded_by: post.supersededBy,
  idempotency_key: post.idempotencyKey,
  created_at: iso(post.createdAt),
  updated_at: iso(post.updatedAt)
})

/** A post's columns as bind parameters (JSONB ones as JSON text). */
export const postToRow = (post: Post) => {
  const columns = postColumns(post)
  return { ...columns, platform_configurations: JSON.stringify(columns.platform_configurations), decision: json(columns.decision) }
}

export interface DeliveryRow {
  readonly id: DeliveryId
  readonly post_id: PostId
  readonly project_id: ProjectId
  readonly account_id: AccountId
  readonly platform: string
  readonly username: string
  readonly status: string
  readonly due_at: Timestamp | null
  readonly url: string | null
  readonly platform_post_id: string | null
  readonly follow_up_post_ids: unknown
  readonly error: unknown
  readonly note: unknown
  readonly attempts: unknown
  readonly takedown: unknown
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}

const DeliveryJson = Schema.Struct({
  follow_up_post_ids: Schema.Array(Schema.String),
  error: Schema.NullOr(DeliveryError),
  note: Schema.NullOr(DeliveryNote),
  attempts: Schema.Array(Attempt),
  takedown: Schema.NullOr(Takedown)
})

const DeliveryColumns = Schema.Struct({
  ...DeliveryJson.fields,
  platform: Platform,
  status: DeliveryStatus
})
const decodeDeliveryColumns = Schema.decodeUnknownEither(DeliveryColumns)

const plainDelivery = (row: DeliveryRow) =>
  platforms.has(row.platform) && deliveryStatuses.has(row.status) && row.error === null && row.note === null &&
  row.takedown === null && Array.isArray(row.attempts) && row.attempts.length === 0 &&
  Array.isArray(row.follow_up_post_ids) && row.follow_up_post_ids.length === 0

export const deliveryFromRow = (row: DeliveryRow): Either.Either<Delivery, ParseResult.ParseError> =>
  Either.map(plainDelivery(row) ? Either.right(row as DeliveryRow & Schema.Schema.Type<typeof DeliveryColumns>) : decodeDeliveryColumns(row), (valid) =>
    Delivery.fromValid({
      id: row.id,
      postId: row.post_id,
      projectId: row.project_id,
      accountId: row.account_id,
      platform: valid.platform,
      username: row.username,
      status: valid.status,
      dueAt: instantOrNull(row.due_at),
      url: row.url,
      platformPostId: row.platform_post_id,
      followUpPostIds: valid.follow_up_post_ids,
      error: valid.error,
      note: valid.note,
      attempts: valid.attempts,
      takedown: valid.takedown,
      createdAt: instant(row.created_at),
      updatedAt: instant(row.updated_at)
    }))

/**
 * A delivery's columns, JSONB ones as values in their encoded form; position keeps the deliveries
 * in the order the post named its accounts. Written by hand rather than through DeliveryJson's
 * encoder (a measurable share of the dispatcher's CPU): of a valid Delivery, only the instants
 * need encoding; error and note are plain JSON already. The round trip is in the storage contract.
 */
export const deliveryColumns = (delivery: Delivery, position: number) => {
  const { takedown } = delivery
  return {
    id: delivery.id,
    post_id: delivery.postId,
    project_id: delivery.projectId,
    position,
    account_id: delivery.accountId,
    platform: delivery.platform,
    username: delivery.username,
    status: delivery.status,
    due_at: isoOrNull(delivery.dueAt),
    url: delivery.url,
    platform_post_id: delivery.platformPostId,
    follow_up_post_ids: delivery.followUpPostIds as unknown,
    error: delivery.error as unknown,
    note: delivery.note as unknown,
    attempts: delivery.attempts.map((attempt) => ({ ...attempt, startedAt: iso(attempt.startedAt), finishedAt: isoOrNull(attempt.finishedAt) })) as unknown,
    takedown: (takedown === null ? null : { ...takedown, at: iso(takedown.at) }) as unknown,
    created_at: iso(delivery.createdAt),
    updated_at: iso(delivery.updatedAt)
  }
}

/** A delivery's columns as bind parameters (JSONB ones as JSON text). */
export const deliveryToRow = (delivery: Delivery, position: number) => {
  const columns = deliveryColumns(delivery, position)
  return {
    ...columns,
    follow_up_post_ids: JSON.stringify(columns.follow_up_post_ids),
    error: json(columns.error),
    note: json(columns.note),
    attempts: JSON.stringify(columns.attempts),
    takedown: json(columns.takedown)
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
    createdAt: iso(instant(row.created_at))
  })

/** An event's columns, data as a value: it is in wire form already, so only the instant needs encoding. */
export const eventColumns = (event: OutboxEvent) => ({
  id: event.id,
  project_id: event.projectId,
  kind: event.kind,
  data: event.data as unknown,
  created_at: iso(event.createdAt)
})

export const eventToRow = (event: OutboxEvent) => {
  const columns = eventColumns(event)
  return { ...columns, data: json(columns.data) }
}

export interface ProjectRow {
  readonly id: ProjectId
  readonly name: string
  readonly timezone: string
  readonly approval: string
  readonly signature: string
  readonly plan: string
  readonly guardrails: unknown
}

const decodeProjectColumns = Schema.decodeUnknownEither(Schema.Struct({
  approval: ApprovalMode,
  plan: PlanStatus,
  guardrails: GuardrailSettings
}))

/**
 * The time zone is taken as stored: only a Project (whose schema checked the zone) is ever
 * written, and checking it again builds an Intl.DateTimeFormat on every request.
 */
export const projectFromRow = (row: ProjectRow): Either.Either<Project, ParseResult.ParseError> =>
  Either.map(decodeProjectColumns(row), (valid) =>
    new Project({
      id: row.id,
      name: row.name,
      timezone: row.timezone,
      approval: valid.approval,
      signature: row.signature,
      guardrails: valid.guardrails,
      plan: valid.plan
    }, true))

export interface AccountRow {
  readonly id: AccountId
  readonly project_id: ProjectId
  readonly platform: string
  readonly username: string
  readonly route: string
  readonly status: string
  /** Selected where the account's readers need it (listing, validation); absent elsewhere. */
  readonly report?: unknown
}

const decodeAccountColumns = Schema.decodeUnknownEither(Schema.Struct({
  platform: Platform,
  route: ConnectionRoute,
  status: AccountStatus,
  report: Schema.optional(Schema.NullOr(AccountReport))
}))

export const accountFromRow = (row: AccountRow): Either.Either<SocialAccount, ParseResult.ParseError> =>
  Either.map(decodeAccountColumns(row), (valid) =>
    new SocialAccount({
      id: row.id,
      projectId: row.project_id,
      platform: valid.platform,
      username: row.username,
      route: valid.route,
      status: valid.status,
      ...(valid.report == null ? {} : { report: valid.report })
    }, true))

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
  readonly codec: string | null
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
    codec: row.codec,
    altText: row.alt_text,
    peopleTags: row.people_tags,
    thumbnailTimestampMs: row.thumbnail_timestamp_ms,
    storageKey: row.storage_key,
    createdAt: iso(instant(row.created_at))
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
    codec: e.codec,
    alt_text: e.altText,
    people_tags: e.peopleTags,
    thumbnail_timestamp_ms: e.thumbnailTimestampMs,
    storage_key: e.storageKey,
    created_at: e.createdAt
  }
}
