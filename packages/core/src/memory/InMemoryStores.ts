import { DateTime, Effect, Layer, Option } from "effect"
import type { SocialAccount } from "../Account.js"
import { DailyCapReached, IdempotencyKeyReused, StaleWrite } from "../Errors.js"
import type { OutboxEvent } from "../Event.js"
import type { ApiKeyId, ProjectId } from "../Ids.js"
import type { Media } from "../Media.js"
import { AccountStore } from "../ports/AccountStore.js"
import { MediaAdmin } from "../ports/MediaAdmin.js"
import { MediaLibrary } from "../ports/MediaLibrary.js"
import { CreateOutcome, type NewPost, PostChange, type PostRecord, PostStore, type PostUpdate } from "../ports/PostStore.js"
import { ProjectStore } from "../ports/ProjectStore.js"
import type { Project } from "../Project.js"

/**
 * In-memory adapters of the storage ports, with the same semantics as the Postgres adapter
 * (one atomic step per call, optimistic versions, idempotency per project, a creation ledger for
 * the daily cap). Core's own tests and SDK users' tests run on them.
 */
export class InMemoryData {
  readonly projects = new Map<string, Project>()
  readonly accounts = new Map<string, SocialAccount>()
  readonly media = new Map<string, Media>()
  readonly posts = new Map<string, PostRecord>()
  readonly idempotency = new Map<string, { readonly postId: string; readonly fingerprint: string }>()
  readonly ledger: Array<{ readonly keyId: ApiKeyId; readonly at: DateTime.Utc }> = []
  readonly outbox: Array<OutboxEvent> = []
  /** Insertion order, so "newest first" is stable when two posts share a timestamp. */
  private sequence = 0
  readonly order = new Map<string, number>()

  remember(record: PostRecord): void {
    this.posts.set(record.post.id, record)
    if (!this.order.has(record.post.id)) this.order.set(record.post.id, this.sequence++)
  }
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
    data.remember(input.record)
    data.outbox.push(...input.events)
    data.ledger.push({ keyId: post.author.keyId, at: post.createdAt })
    if (input.idempotency !== null) {
      data.idempotency.set(idempotencyKey(post.projectId, input.idempotency.key), {
        postId: post.id,
        fingerprint: input.idempotency.fingerprint
      })
    }
    return Effect.succeed(CreateOutcome.Created({ record: input.record }))
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
        Effect.sync(() => {
          data.remember(record)
          data.outbox.push(...events)
        }),
      Supersede: ({ previous, successor }) =>
        insert(data, successor).pipe(
          Effect.orDie,
          Effect.tap(() => Effect.sync(() => data.remember({ ...current, post: previous })))
        ),
      Remove: () => Effect.sync(() => void data.posts.delete(postId))
    })
  })

/** Each update checked against the store before any is applied, then all applied in one step. */
const commitAll = (data: InMemoryData, changes: ReadonlyArray<PostUpdate>): Effect.Effect<ReadonlyArray<StaleWrite>> =>
  Effect.sync(() => {
    const posts = new Set<string>()
    const stale: Array<StaleWrite> = []
    const fresh = changes.filter((change) => {
      const postId = change.record.post.id
      if (posts.has(postId)) throw new Error(`commitAll got two changes of post ${postId}`)
      posts.add(postId)
      if (data.posts.get(postId)?.post.version === change.expectedVersion) return true
      stale.push(new StaleWrite({ postId }))
      return false
    })
    for (const { events, record } of fresh) {
      data.remember(record)
      data.outbox.push(...events)
    }
    return stale
  })

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
          .sort((a, b) => data.order.get(b.post.id)! - data.order.get(a.post.id)!)
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
    }))
  )
}
