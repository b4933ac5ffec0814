// The records the storage contract writes, shared by every adapter's tests (a fresh id each time,
// so tests on one database stay apart).
import {
  AccountId,
  type ActorKind,
  ApiKeyId,
  Delivery,
  type DeliveryStatus,
  type NewPost,
  Post,
  Project,
  ProjectId,
  DeliveryId,
  PostId,
  noGuardrails,
  SocialAccount,
  WebhookEndpoint,
  WebhookEndpointId
} from "@herald/core"
import { DateTime } from "effect"
import { randomUUID } from "node:crypto"

export const at = (iso: string) => DateTime.unsafeMake(iso)
export const t0 = at("2030-01-15T10:00:00.000Z")

export const newProject = () =>
  new Project({
    id: ProjectId.make(randomUUID()),
    name: "Acme",
    timezone: "Europe/Paris",
    approval: "autopilot",
    signature: "-- acme",
    guardrails: { ...noGuardrails, banned_words: ["spam"] },
    plan: "active"
  })

/** An enabled endpoint of the project, subscribed to post.published. */
export const newEndpoint = (projectId: ProjectId) =>
  new WebhookEndpoint({
    id: WebhookEndpointId.make(randomUUID()),
    projectId,
    url: "https://hooks.example.com/herald",
    kinds: ["post.published"],
    enabled: true,
    consecutiveFailures: 0,
    lastError: null,
    createdAt: t0
  })

export const newAccount = (projectId: ProjectId, username = "acme") =>
  new SocialAccount({
    id: AccountId.make(randomUUID()),
    projectId,
    platform: "x",
    username,
    route: "simulator",
    status: "active"
  })

export interface PostSpec {
  readonly projectId: ProjectId
  readonly keyId?: ApiKeyId
  readonly kind?: ActorKind
  readonly createdAt?: DateTime.Utc
  readonly deliveries?: number
  readonly deliveryStatus?: DeliveryStatus
  readonly dueAt?: DateTime.Utc | null
  readonly idempotency?: { readonly key: string; readonly fingerprint: string } | null
  readonly dailyCap?: { readonly cap: number } | null
}

export const newKeyId = () => ApiKeyId.make(randomUUID())

/** A complete NewPost with its deliveries, as the create use case would build it. */
export const newPost = (spec: PostSpec): NewPost => {
  const createdAt = spec.createdAt ?? t0
  const keyId = spec.keyId ?? newKeyId()
  const postId = PostId.make(randomUUID())
  const accountIds = Array.from({ length: spec.deliveries ?? 2 }, () => AccountId.make(randomUUID()))
  const post = new Post({
    id: postId,
    projectId: spec.projectId,
    version: 1,
    status: "processing",
    caption: "Hello from Herald",
    signature: "-- acme",
    skipSignature: false,
    accountIds,
    mediaIds: [],
    scheduledAt: null,
    platformConfigurations: { x: { reply_settings: "everyone", thread: ["two", "three"] } },
    author: { keyId, keyName: "writer", kind: spec.kind ?? "agent", surface: "mcp" },
    origin: { keyId: newKeyId(), keyName: "first writer", kind: "human", surface: "sdk" },
    decision: null,
    supersedes: null,
    supersededBy: null,
    idempotencyKey: spec.idempotency?.key ?? null,
    createdAt,
    updatedAt: createdAt
  })
  const deliveries = accountIds.map((accountId, index) =>
    new Delivery({
      id: DeliveryId.make(randomUUID()),
      postId,
      projectId: spec.projectId,
      accountId,
      platform: "x",
      username: `account${index}`,
      status: spec.deliveryStatus ?? "pending",
      dueAt: spec.dueAt === undefined ? null : spec.dueAt,
      url: null,
      platformPostId: null,
      error: null,
      note: null,
      attempts: [],
      takedown: null,
      createdAt,
      updatedAt: createdAt
    })
  )
  return {
    record: { post, deliveries },
    events: [],
    idempotency: spec.idempotency ?? null,
    dailyCap: spec.dailyCap
      ? { keyId, cap: spec.dailyCap.cap, since: DateTime.subtract(createdAt, { hours: 1 }), resetAt: DateTime.add(createdAt, { hours: 23 }) }
      : null
  }
}
