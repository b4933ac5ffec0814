import { Schema } from "effect"
import { ChannelRecipient } from "./ApprovalChannel.js"
import { AccountId, ApiKeyId, MediaId, PostId, ProjectId } from "./Ids.js"
import { PlatformConfigurations } from "./platforms/Registry.js"
import { ActorKind, type Principal, Surface } from "./Principal.js"

export const PostStatus = Schema.Literal(
  "pending_approval",
  "scheduled",
  "processing",
  "posted",
  "partial",
  "failed",
  "rejected",
  "draft"
)
export type PostStatus = typeof PostStatus.Type
export const postStatuses = PostStatus.literals

/** What a row is waiting for (the contract's `publishes`); null when it is parked. */
export const Publishes = Schema.NullOr(Schema.Literal("at_time", "on_approval", "now"))
export type Publishes = typeof Publishes.Type

/**
 * scheduled_at as sent: ISO 8601 with Z or a UTC offset, or a bare date-time that is read on the
 * project's timezone. Interpreting it needs the project, so it stays a string until then.
 */
export const ScheduledAtInput = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i, {
    message: () => "scheduled_at must be an ISO 8601 date-time such as 2026-12-01T09:30:00Z or 2026-12-01T10:30:00+01:00"
  })
)

/** A client's own id for a create (POST /posts, a bulk row, the Idempotency-Key header): 1 to 255 characters. */
export const IdempotencyKey = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255))

/** The body of POST /posts. */
export const CreatePostBody = Schema.Struct({
  // Descriptions go on the fields, not their types: a type's description becomes its refusal message.
  caption: Schema.optional(Schema.String.pipe(Schema.maxLength(10000))).annotations({
    description: "The text, up to 10000 characters (each account's limits.caption_chars_available is its own ceiling). " +
      "Required unless every destination can publish media without words (x, instagram, linkedin) or it is a story."
  }),
  social_accounts: Schema.propertySignature(Schema.Array(Schema.String).pipe(Schema.minItems(1)).annotations({
    examples: [["x:herald", "linkedin:herald"]]
  })).annotations({
    description: "Where to post: account refs as GET /social-accounts gives them (platform:username), or account ids. " +
      "Every one must resolve, or nothing is created."
  }),
  media_ids: Schema.optional(Schema.Array(Schema.UUID)).annotations({
    description: "Ids from POST /media, in carousel order (the first leads)."
  }),
  scheduled_at: Schema.optional(ScheduledAtInput.annotations({ examples: ["2026-12-01T09:30:00Z"] })).annotations({
    description: "When to publish: ISO 8601 with Z or an offset (a bare date-time is read on the project's timezone). " +
      "Omit to publish now (after approval in copilot mode); more than 2 minutes in the past is refused."
  }),
  is_draft: Schema.optional(Schema.Boolean).annotations({ description: "Save without publishing (default false)." }),
  platform_configurations: Schema.optional(PlatformConfigurations),
  idempotency_key: Schema.optional(IdempotencyKey).annotations({
    description: "Your own id for this create (1 to 255 characters): sending it again returns the first post (repeated true)."
  }),
  skip_signature: Schema.optional(Schema.Boolean).annotations({ description: "Leave the project signature off this post (default false)." })
})
export type CreatePostBody = typeof CreatePostBody.Type

/**
 * The body of PATCH /posts/{id}: omitted fields are kept; scheduled_at null clears the schedule.
 * is_draft is Herald's addition (the only way out of draft): false releases a draft the way a
 * create would, true parks an unsent post as a draft.
 */
export const PatchPostBody = Schema.Struct({
  caption: Schema.optional(Schema.String.pipe(Schema.maxLength(10000))),
  media_ids: Schema.optional(Schema.Array(Schema.UUID)),
  scheduled_at: Schema.optional(Schema.NullOr(ScheduledAtInput)),
  platform_configurations: Schema.optional(PlatformConfigurations),
  is_draft: Schema.optional(Schema.Boolean)
})
export type PatchPostBody = typeof PatchPostBody.Type

/**
 * A key that did something to a post, as it was then: its id, name and kind, and the surface the
 * request came through. keyName and surface are null on what was written before migration 0018.
 */
export const Actor = Schema.Struct({
  keyId: ApiKeyId,
  keyName: Schema.NullOr(Schema.String),
  kind: ActorKind,
  surface: Schema.NullOr(Surface)
})
export type Actor = typeof Actor.Type

/** Who wrote a version of a post: its creator, or for a version an edit made, the editor. */
export const Author = Actor
export type Author = Actor

export const actorOf = (principal: Principal): Actor => ({
  keyId: principal.keyId,
  keyName: principal.keyName,
  kind: principal.kind,
  surface: principal.surface
})

/** Read from JSONB written before migration 0018, which held no key name or surface: null, unknown. */
const unknownYet = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(Schema.NullOr(schema), { default: () => null })

/**
 * A person's decision on a held post: through a human key (by names it, byName and surface say
 * which and how) or through the post's signed approval link (by is null: the link itself was the
 * person's credential).
 */
export const Decision = Schema.Struct({
  outcome: Schema.Literal("approved", "rejected"),
  via: Schema.Literal("api_key", "approval_link"),
  by: Schema.NullOr(ApiKeyId),
  byName: unknownYet(Schema.String),
  surface: unknownYet(Surface),
  at: Schema.DateTimeUtc,
  reason: Schema.NullOr(Schema.String),
  /** The approval channel message whose link decided (null: the post's own link, a key, or recorded before channels). */
  channel: unknownYet(ChannelRecipient)
})
export type Decision = typeof Decision.Type

export class Post extends Schema.Class<Post>("Post")({
  id: PostId,
  projectId: ProjectId,
  /** Optimistic-concurrency version: every committed change increments it. */
  version: Schema.Int,
  status: PostStatus,
  /** The caption as the caller wrote it, without the signature. */
  caption: Schema.NullOr(Schema.String),
  /** The signature appended when the post was written ("" when skipped or none). */
  signature: Schema.String,
  skipSignature: Schema.Boolean,
  accountIds: Schema.Array(AccountId),
  mediaIds: Schema.Array(MediaId),
  scheduledAt: Schema.NullOr(Schema.DateTimeUtc),
  platformConfigurations: PlatformConfigurations,
  author: Author,
  /** Who created the post's first version: the author, unless an edit made this version. */
  origin: Actor,
  decision: Schema.NullOr(Decision),
  supersedes: Schema.NullOr(PostId),
  supersededBy: Schema.NullOr(PostId),
  idempotencyKey: Schema.NullOr(Schema.String),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {
  /**
   * A copy with some fields changed. Not validated again: this is a valid Post and the changes are
   * typed domain values, and checking the whole class on every copy was a measurable share of the
   * dispatcher's CPU. Built the way the class's constructor ends (its fields assigned onto its
   * prototype, as Data.Class does), without the constructor's copy of the fields and its pass over
   * them for defaults (it has none): the dispatcher copies it twice per delivery.
   */
  with(changes: Partial<Schema.Struct.Type<typeof Post.fields>>): Post {
    return Object.assign(Post.fromValid(this), changes)
  }

  /**
   * A Post from fields known to be valid (a row the storage checked), built as `with` builds its
   * copies: the constructor's copy of the fields and its pass for defaults cost more than the rest
   * of decoding the row.
   */
  static fromValid(fields: Schema.Struct.Type<typeof Post.fields>): Post {
    return Object.assign(Object.create(Post.prototype) as Post, fields)
  }
}
