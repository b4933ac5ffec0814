import { DateTime, Effect, Either, Option } from "effect"
import { accountRef, resolveAccountRefs, type SocialAccount } from "./Account.js"
import { Delivery } from "./Delivery.js"
import { excerpt } from "./Echo.js"
import { GuardrailBlocked, UnknownOption, ValidationFailed, type Violation } from "./Errors.js"
import { checkGuardrails, outboundTexts } from "./Guardrails.js"
import { DeliveryId, type MediaId, type PostId, type ProjectId } from "./Ids.js"
import type { Media } from "./Media.js"
import type { PlatformConfigurations } from "./platforms/Registry.js"
import type { PostStatus } from "./Post.js"
import { unknownOptions, validateDraft } from "./PostValidation.js"
import { AccountStore } from "./ports/AccountStore.js"
import { IdGenerator } from "./ports/IdGenerator.js"
import { PinterestBoards } from "./ports/PinterestBoards.js"
import { boardRefusals } from "./platforms/pinterest.js"
import { MediaLibrary } from "./ports/MediaLibrary.js"
import type { Project } from "./Project.js"
import { resolveScheduledAt } from "./ScheduledAt.js"
import { traced } from "./Tracing.js"

/** What a create, a bulk row or an edit asks for, before anything is resolved. */
export interface PostIntent {
  readonly caption: string | null
  readonly accounts: ReadonlyArray<string>
  readonly mediaIds: ReadonlyArray<string>
  /** A date-time as sent (read on the project's clock), an instant already resolved, or none. */
  readonly scheduledAt: string | DateTime.Utc | null
  readonly platformConfigurations: PlatformConfigurations
  readonly skipSignature: boolean
  /** Edits use the field names of PATCH (no social_accounts). */
  readonly accountsField: string
}

/** A post that passed validation and guardrails, ready to be written. */
export interface PostPlan {
  readonly caption: string | null
  readonly signature: string
  readonly accounts: ReadonlyArray<SocialAccount>
  readonly media: ReadonlyArray<Media>
  readonly scheduledAt: DateTime.Utc | null
  /** scheduled_at absent or already reached. */
  readonly due: boolean
}

const refViolations = (field: string, refs: ReadonlyArray<string>, accounts: ReadonlyArray<SocialAccount>) =>
  Either.match(resolveAccountRefs(refs, accounts), {
    onLeft: (failures) => ({
      accounts: [] as ReadonlyArray<SocialAccount>,
      violations: failures.map((failure): Violation => ({
        field: `${field}[${failure.index}]`,
        account: excerpt(failure.ref),
        message: failure.message
      }))
    }),
    onRight: (resolved) => ({ accounts: resolved, violations: [] as ReadonlyArray<Violation> })
  })

const inOrder = (ids: ReadonlyArray<string>, found: ReadonlyArray<Media>) => {
  const byId = new Map(found.map((media) => [media.id as string, media]))
  const media: Array<Media> = []
  const violations: Array<Violation> = []
  ids.forEach((id, index) => {
    const row = byId.get(id)
    if (row === undefined) {
      violations.push({ field: `media_ids[${index}]`, account: null, message: `media ${id} not found in this project` })
    } else {
      media.push(row)
    }
  })
  return { media, violations }
}

/** Each Pinterest target's board_ids against its boards as last read (no call to Pinterest). */
const pinterestBoardViolations = (
  accounts: ReadonlyArray<SocialAccount>,
  all: ReadonlyArray<SocialAccount>,
  configurations: PlatformConfigurations
) => {
  const boardIds = configurations.pinterest?.board_ids ?? []
  const pinners = accounts.filter((account) => account.platform === "pinterest")
  if (boardIds.length === 0 || pinners.length === 0) return Effect.succeed([])
  return Effect.flatMap(PinterestBoards, (boards) =>
    Effect.map(
      Effect.forEach(pinners, (account) =>
        Effect.map(boards.get(account.id), (known) => boardRefusals(account, accountRef(account, all), boardIds, known))),
      (found) => found.flat()
    ))
}

/**
 * The single-post path every write shares: resolve accounts and media, read scheduled_at on the
 * project's clock, apply the signature, validate everything at once, then run the guardrails over
 * every outbound word.
 */
export const planPost = traced("planPost")(function*(project: Project, intent: PostIntent) {
  const now = yield* DateTime.now
  const all = yield* AccountStore.pipe(Effect.flatMap((store) => store.list(project.id)))
  const targets = refViolations(intent.accountsField, intent.accounts, all)
  const found = yield* MediaLibrary.pipe(
    Effect.flatMap((library) => library.getMany(project.id, intent.mediaIds as ReadonlyArray<MediaId>))
  )
  const media = inOrder(intent.mediaIds, found)
  const scheduled = intent.scheduledAt === null
    ? Either.right(null)
    : typeof intent.scheduledAt === "string"
    ? resolveScheduledAt(intent.scheduledAt, project.timezone, now)
    : Either.right(intent.scheduledAt)
  const signature = intent.skipSignature ? "" : project.signature
  const draft = {
    caption: intent.caption,
    signature,
    accounts: targets.accounts,
    media: media.media,
    platformConfigurations: intent.platformConfigurations,
    projectAccounts: all
  }
  // Refused first, with a code of its own: a key the platform lacks is most often a typo or another
  // platform's key, and its other rules would judge the post without the option the caller meant.
  const unknown = targets.violations.length === 0 ? unknownOptions(draft) : []
  if (unknown.length > 0) return yield* new UnknownOption({ violations: unknown })
  const violations = [
    ...targets.violations,
    ...media.violations,
    ...Either.match(scheduled, { onLeft: (violation) => [violation], onRight: () => [] }),
    ...(targets.violations.length === 0 ? validateDraft(draft) : []),
    ...(yield* pinterestBoardViolations(targets.accounts, all, intent.platformConfigurations))
  ]
  if (violations.length > 0) return yield* new ValidationFailed({ violations })

  const verdict = yield* checkGuardrails(
    outboundTexts({ caption: intent.caption, signature, platformConfigurations: intent.platformConfigurations }),
    project.guardrails,
    { postsToday: null }
  )
  if (!verdict.allowed) return yield* new GuardrailBlocked({ violations: verdict.violations })

  const scheduledAt = Option.getOrNull(Either.getRight(scheduled))
  return {
    caption: intent.caption,
    signature,
    accounts: targets.accounts,
    media: media.media,
    scheduledAt,
    due: scheduledAt === null || !DateTime.greaterThan(scheduledAt, now)
  } satisfies PostPlan
})

/**
 * Where a post's deliveries stand for a given post status: held and parked posts keep them
 * pending; released ones queue them for their time.
 */
export const deliveryState = (status: PostStatus, scheduledAt: DateTime.Utc | null, now: DateTime.Utc) =>
  status === "scheduled" || status === "processing"
    ? { status: "queued" as const, dueAt: status === "scheduled" && scheduledAt !== null ? scheduledAt : now }
    : { status: "pending" as const, dueAt: null }

export const newDeliveries = traced("newDeliveries")(function*(
  projectId: ProjectId,
  postId: PostId,
  accounts: ReadonlyArray<SocialAccount>,
  state: ReturnType<typeof deliveryState>,
  now: DateTime.Utc
) {
  const ids = yield* IdGenerator
  return yield* Effect.forEach(accounts, (account) =>
    ids.uuid.pipe(Effect.map((id) =>
      new Delivery({
        id: DeliveryId.make(id),
        postId,
        projectId,
        accountId: account.id,
        platform: account.platform,
        username: account.username,
        status: state.status,
        dueAt: state.dueAt,
        url: null,
        platformPostId: null,
        error: null,
        note: null,
        attempts: [],
        takedown: null,
        createdAt: now,
        updatedAt: now
      }, true) // typed values only: checking them again is work on every create that cannot fail
    )))
})
