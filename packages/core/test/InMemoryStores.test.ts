import { layer } from "@effect/vitest"
import {
  InMemoryApiKeys,
  InMemoryData,
  inMemoryRateLimits,
  makeInMemoryAdmin,
  makeInMemoryApprovalChannels,
  makeInMemoryStores
} from "@herald/core/memory"
import { Effect, Layer } from "effect"
import {
  accountCases,
  approvalChannelCases,
  apiKeyCases,
  connectionCases,
  connectionCheckCases,
  metricsStoreCases,
  platformQuotaCases,
  postStoreCases,
  projectCases,
  pinterestBoardCases,
  publishCheckpointCases,
  rateLimitCases,
  webhookSecretCases,
  StoredRows
} from "./contract/index.js"

const data = new InMemoryData()
const keys = new InMemoryApiKeys()

/** The in-memory stores' state as the rows of the tables the contract reads. */
const tables: Record<string, () => ReadonlyArray<Readonly<Record<string, unknown>>>> = {
  posts: () => [...data.posts.values()].map(({ post }) => ({ id: post.id, project_id: post.projectId })),
  deliveries: () =>
    [...data.posts.values()].flatMap(({ deliveries }) =>
      deliveries.map((delivery) => ({ id: delivery.id, post_id: delivery.postId, project_id: delivery.projectId }))
    ),
  outbox_events: () => data.outbox.map((event) => ({ id: event.id, project_id: event.projectId, kind: event.kind })),
  idempotency_keys: () =>
    [...data.idempotency.values()].map(({ fingerprint, postId }) => ({
      post_id: postId,
      project_id: data.posts.get(postId)?.post.projectId,
      fingerprint
    })),
  post_creations: () => data.ledger.map((entry) => ({ post_id: entry.postId, project_id: entry.projectId, key_id: entry.keyId })),
  api_keys: () => [...keys.byHash.values()].map(({ key }) => ({ id: key.id, project_id: key.projectId, key_hash: key.hash }))
}

const storedRows = Layer.succeed(StoredRows, StoredRows.of({
  rows: (table, column, value) =>
    Effect.suspend(() => {
      const rows = tables[table]
      return rows === undefined
        ? Effect.dieMessage(`the in-memory stores keep no table ${table}`)
        : Effect.succeed(rows().filter((row) => row[column] === value))
    })
}))

// No in-memory adapter exists of DeliveryQueue or OutboxQueue (the workers and webhooks run on a
// database), so their cases run on PGlite and PostgreSQL only.
layer(Layer.mergeAll(makeInMemoryStores(data), keys.layer, inMemoryRateLimits(), storedRows))("in-memory stores", (it) => {
  postStoreCases(it)
  projectCases(it)
  apiKeyCases(it)
  rateLimitCases(it)
  metricsStoreCases(it)
  publishCheckpointCases(it)
  platformQuotaCases(it)
})

layer(Layer.mergeAll(makeInMemoryStores(data), makeInMemoryAdmin(data), storedRows))("in-memory admin ports", (it) => {
  accountCases(it)
  connectionCases(it)
  connectionCheckCases(it)
  pinterestBoardCases(it)
  webhookSecretCases(it)
})

layer(Layer.mergeAll(makeInMemoryStores(data), makeInMemoryApprovalChannels(data)))("in-memory approval channels", (it) => {
  approvalChannelCases(it)
})
