import { DateTime, Effect, Layer, Option } from "effect"
import type { SocialAccount } from "../Account.js"
import { DailyCapReached, IdempotencyKeyReused, StaleWrite } from "../Errors.js"
import type { OutboxEvent } from "../Event.js"
import type { AccountId, ApiKeyId, PostId, ProjectId } from "../Ids.js"
import type { Media } from "../Media.js"
import type { Credentials } from "../ports/AccountAdmin.js"
import { AccountStore } from "../ports/AccountStore.js"
import type { PendingConnection } from "../ports/ConnectionStates.js"
import { inMemoryMetricsStore } from "./InMemoryMetrics.js"
import { MediaAdmin } from "../ports/MediaAdmin.js"
import { MediaLibrary } from "../ports/MediaLibrary.js"
import { CreateOutcome, type NewPost, PostChange, type PostRecord, PostStore, type PostUpdate } from "../ports/PostStore.js"
import { ProjectAdmin, ProjectNotFound } from "../ports/ProjectAdmin.js"
import { ProjectStore } from "../ports/ProjectStore.js"
import { type KnownBoard, PinterestBoards } from "../ports/PinterestBoards.js"
import { PlatformQuotas } from "../ports/PlatformQuotas.js"
import { PublishCheckpoints } from "../ports/PublishCheckpoints.js"
import type { Project } from "../Project.js"
import { PublishingPauses } from "../ports/PublishingPauses.js"
import type { PublishingPause } from "../PublishingPause.js"

/**
 * In-memory adapters of the storage ports, with the same semantics as the Postgres adapter
 * (one atomic step per call, optimistic versions, idempotency per project, a creation ledger for
 * the daily cap, unique ids). Core's own tests and SDK users' tests run on them, and they pass the
 * storage contract's cases of their ports (core/test/InMemoryStores.test.ts).
 */
export class InMemoryData {
  readonly projects = new Map<string, Project>()
  readonly accounts = new Map<string, SocialAccount>()
  readonly media = new Map<string, Media>()
  readonly posts = new Map<string, PostRecord>()
  /** By project and key; a post's removal frees its keys. */
  readonly idempotency = new Map<string, { readonly postId: string; readonly fingerprint: string }>()
  /** Every creation, kept when the post is removed: the daily cap counts them. */
  readonly ledger: Array<{ readonly postId: PostId; readonly projectId: ProjectId; readonly keyId: ApiKeyId; readonly at: DateTime.Utc }> = []
  readonly outbox: Array<OutboxEvent> = []
  /** The accounts' credentials (AccountAdmin), by account id. */
  readonly credentials = new Map<string, Credentials>()
  /** Account ids by project, platform, route and the platform's account id. */
  readonly platformAccounts = new Map<string, AccountId>()
  readonly connectionStates = new Map<string, PendingConnection>()
  /** The emergency stops in force, by project id ("" for the instance's). */
  readonly pauses = new Map<string, PublishingPause>()
  /** What publishers recorded part-way through a delivery, by delivery id. */
  readonly checkpoints = new Map<string, string>()
  readonly boards = new Map<string, ReadonlyArray<KnownBoard>>()
  /** Platform quota units spent, by `${bucket} ${day}`. */
  readonly quotaUsed = new Map<string, number>()

  remember(record: PostRecord): void {
    this.posts.set(record.post.id, record)
  }
}

/**
 * What the database refuses as a duplicate key: a new post's id or delivery ids already taken (or
 * twice in it), an event id already written. The write fails as a defect there as here, and
 * writes nothing.
 */
const refuseTaken = (data: InMemoryData, created: PostRecord | null, events: ReadonlyArray<OutboxEvent>): Effect.Effect<void> => {
  const taken: Array<string> = []
  if (created !== null) {
    if (data.posts.has(created.post.id)) taken.push(`post ${created.post.id}`)
    const deliveries = new Set([...data.posts.values()].flatMap((record) => record.deliveries.map((delivery) => delivery.id)))
    for (const { id } of created.deliveries) {
      if (deliveries.has(id)) taken.push(`delivery ${id}`)
      deliveries.add(id)
    }
  }
  const eventIds = new Set(data.outbox.map((event) => event.id))
  for (const { id } of events) {
    if (eventIds.has(id)) taken.push(`event ${id}`)
    eventIds.add(id)
  }
  return taken.length === 0 ? Effect.void : Effect.dieMessage(`duplicate key: ${taken.join(", ")}`)
}

const idempotencyKey = (projectId: ProjectId, key: string) => `${projectId}\u0000${key}`

const insert = (data: InMemoryData, input: NewPost): Effect.Effect<CreateOutcome, IdempotencyKeyReused | DailyCapReached> =>
  Effect.suspend((): Effect.Effect<CreateOutcome, IdempotencyKeyReused | DailyCapReached> => {
    const { post } = input.record
    if (input.idempotency !== null) {
      const earlier = data.idempotency.get(idempotencyKey(post.projectId, input.idempotency.key))
      if (earlier !== undefined) {
        return earlier.fingerprint === input.idempotency.fingerprint
          ? Effect.succeed(CreateOutcome.Repeated({ record: data.posts.get(earlier.postId)! }))
          : Effect.fail(new IdempotencyKeyReused({ key: input.idempotency.key }))
      }
    }
    const cap = input.dailyCap
    if (cap !== null) {
      const used = data.ledger.filter((entry) => entry.keyId === cap.keyId && !DateTime.lessThan(entry.at, cap.since)).length
      if (used >= cap.cap) return Effect.fail(new DailyCapReached({ cap: cap.cap, resetAt: cap.resetAt }))
    }
    return Effect.as(
      Effect.zipRight(
        refuseTaken(data, input.record, input.events),
        Effect.sync(() => {
          data.remember(input.record)
          data.outbox.push(...input.events)
          data.ledger.push({ postId: post.id, projectId: post.projectId, keyId: post.author.keyId, at: post.createdAt })
          const { idempotency } = input
          if (idempotency !== null) {
            data.idempotency.set(idempotencyKey(post.projectId, idempotency.key), { postId: post.id, fingerprint: idempotency.fingerprint })
          }
        })
      ),
      CreateOutcome.Created({ record: input.record })
    )
  })

const commit = (data: InMemoryData, change: PostChange): Effect.Effect<void, StaleWrite> =>
  Effect.suspend((): Effect.Effect<void, StaleWrite> => {
    const postId = change._tag === "Remove" ? change.postId : change._tag === "Update" ? change.record.post.id : change.previous.id
    const current = data.posts.get(postId)
    if (current === undefined || current.post.version !== change.expectedVersion) {
      return Effect.fail(new StaleWrite({ postId }))
    }
    return PostChange.$match(change, {
      Update: ({ events, record }) =>
        Effect.zipRight(
          refuseTaken(data, null, events),
          Effect.sync(() => {
            data.remember(record)
            data.outbox.push(...events)
          })
        ),
      // As the database does: the stored post is marked, whatever else `previous` says.
      Supersede: ({ successor }) =>
        insert(data, successor).pipe(
          Effect.orDie,
          Effect.flatMap((outcome) =>
            outcome._tag === "Repeated"
              ? Effect.dieMessage(`successor of post ${postId} reuses an idempotency key already bound to post ${outcome.record.post.id}`)
              : Effect.sync(() =>
                data.remember({
                  ...current,
                  post: current.post.with({
                    supersededBy: successor.record.post.id,
                    version: current.post.version + 1,
                    updatedAt: successor.record.post.createdAt
                  })
                })
              )
          )
        ),
      Remove: () =>
        Effect.sync(() => {
          data.posts.delete(postId)
          for (const [key, { postId: keyPost }] of data.idempotency) if (keyPost === postId) data.idempotency.delete(key)
        })
    })
  })

/** Each update checked against the store before any is applied, then all applied in one step. */
const commitAll = (data: InMemoryData, changes: ReadonlyArray<PostUpdate>): Effect.Effect<ReadonlyArray<StaleWrite>> =>
  Effect.suspend(() => {
    if (new Set(changes.map((change) => change.record.post.id)).size < changes.length) {
      return Effect.dieMessage("commitAll got two changes of one post")
    }
    const fresh = changes.filter((change) => data.posts.get(change.record.post.id)?.post.version === change.expectedVersion)
    const stale = changes.filter((change) => !fresh.includes(change)).map((change) => new StaleWrite({ postId: change.record.post.id }))
    return refuseTaken(data, null, fresh.flatMap((change) => change.events)).pipe(
      Effect.zipRight(Effect.sync(() => {
        for (const { events, record } of fresh) {
          data.remember(record)
          data.outbox.push(...events)
        }
      })),
      Effect.as(stale)
    )
  })

/** The database's order of a list: newest first, then the highest id (a uuid sorts as its text). */
const newestFirst = ({ post: a }: PostRecord, { post: b }: PostRecord) =>
  DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) || (a.id > b.id ? -1 : a.id < b.id ? 1 : 0)

export const makeInMemoryStores = (data: InMemoryData) => {
  const postStore = PostStore.of({
    create: (input) => insert(data, input),
    findIdempotent: (projectId, key) =>
      Effect.sync(() => {
        const earlier = data.idempotency.get(idempotencyKey(projectId, key))
        const record = earlier === undefined ? undefined : data.posts.get(earlier.postId)
        return earlier === undefined || record === undefined
          ? Option.none()
          : Option.some({ record, fingerprint: earlier.fingerprint })
      }),
    find: (projectId, id) =>
      Effect.sync(() => Option.filter(Option.fromNullable(data.posts.get(id)), (record) => record.post.projectId === projectId)),
    findByDelivery: (projectId, id) =>
      Effect.sync(() =>
        Option.fromNullable(
          [...data.posts.values()].find((record) =>
            record.post.projectId === projectId && record.deliveries.some((delivery) => delivery.id === id)
          )
        )
      ),
    list: (projectId, query) =>
      Effect.sync(() =>
        [...data.posts.values()]
          .filter((record) =>
            record.post.projectId === projectId && record.post.supersededBy === null &&
            (query.statuses === null || query.statuses.includes(record.post.status))
          )
          .sort(newestFirst)
          .slice(0, query.limit)
      ),
    findMany: (keys) =>
      Effect.sync(() => {
        const found = new Map<string, PostRecord>()
        for (const { postId, projectId } of keys) {
          const record = data.posts.get(postId)
          if (record !== undefined && record.post.projectId === projectId) found.set(postId, record)
        }
        return [...found.values()]
      }),
    commit: (change) => commit(data, change),
    commitAll: (changes) => commitAll(data, changes),
    createdSince: (keyId, since) =>
      Effect.sync(() => data.ledger.filter((entry) => entry.keyId === keyId && !DateTime.lessThan(entry.at, since)).length)
  })
  return Layer.mergeAll(
    Layer.succeed(PostStore, postStore),
    Layer.succeed(ProjectStore, ProjectStore.of({ get: (id) => Effect.sync(() => Option.fromNullable(data.projects.get(id))) })),
    Layer.succeed(ProjectAdmin, ProjectAdmin.of({
      create: (project) =>
        data.projects.has(project.id)
          ? Effect.dieMessage(`duplicate key: project ${project.id}`)
          : Effect.sync(() => void data.projects.set(project.id, project)),
      update: (project) =>
        data.projects.has(project.id)
          ? Effect.sync(() => void data.projects.set(project.id, project))
          : Effect.fail(new ProjectNotFound({ projectId: project.id })),
      list: Effect.sync(() => [...data.projects.values()])
    })),
    Layer.succeed(AccountStore, AccountStore.of({
      list: (projectId) => Effect.sync(() => [...data.accounts.values()].filter((account) => account.projectId === projectId))
    })),
    Layer.succeed(MediaAdmin, MediaAdmin.of({
      save: (media) => Effect.sync(() => void data.media.set(media.id, media)),
      remove: (projectId, id) =>
        Effect.sync(() => data.media.get(id)?.projectId === projectId && data.media.delete(id))
    })),
    Layer.succeed(MediaLibrary, MediaLibrary.of({
      getMany: (projectId, ids) =>
        Effect.sync(() => ids.flatMap((id) => {
          const media = data.media.get(id)
          return media !== undefined && media.projectId === projectId ? [media] : []
        }))
    })),
    Layer.succeed(PublishingPauses, PublishingPauses.of({
      pause: (pause) =>
        Effect.sync(() => {
          const scope = pause.projectId ?? ""
          const kept = data.pauses.get(scope) ?? pause
          data.pauses.set(scope, kept)
          return kept
        }),
      resume: (projectId) =>
        Effect.sync(() => {
          const scope = projectId ?? ""
          const lifted = Option.fromNullable(data.pauses.get(scope))
          data.pauses.delete(scope)
          return lifted
        }),
      holding: (projectId) => Effect.sync(() => [data.pauses.get(""), data.pauses.get(projectId)].filter((pause) => pause !== undefined)),
      list: Effect.sync(() => [...data.pauses.values()])
    })),
    Layer.succeed(PublishCheckpoints, PublishCheckpoints.of({
      get: (deliveryId) => Effect.sync(() => Option.fromNullable(data.checkpoints.get(deliveryId))),
      put: (deliveryId, value) => Effect.sync(() => void data.checkpoints.set(deliveryId, value)),
      clear: (deliveryId) => Effect.sync(() => void data.checkpoints.delete(deliveryId))
    })),
    Layer.succeed(PinterestBoards, PinterestBoards.of({
      get: (accountId) => Effect.sync(() => Option.fromNullable(data.boards.get(accountId))),
      put: (accountId, boards) => Effect.sync(() => void data.boards.set(accountId, boards))
    })),
    Layer.succeed(PlatformQuotas, PlatformQuotas.of({
      spend: (bucket, day, units, limit) =>
        Effect.sync(() => {
          const key = `${bucket} ${day}`
          const used = data.quotaUsed.get(key) ?? 0
          if (limit !== null && used + units > limit) return { spent: false, used }
          data.quotaUsed.set(key, used + units)
          return { spent: true, used: used + units }
        }),
      exhaust: (bucket, day, limit) =>
        Effect.sync(() => {
          const key = `${bucket} ${day}`
          data.quotaUsed.set(key, Math.max(limit, data.quotaUsed.get(key) ?? 0))
        }),
      used: (bucket, day) => Effect.sync(() => data.quotaUsed.get(`${bucket} ${day}`) ?? 0)
    })),
    inMemoryMetricsStore(data)
  )
}
