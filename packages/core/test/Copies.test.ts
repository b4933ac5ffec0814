import { describe, expect, it } from "@effect/vitest"
import { AccountId, ApiKeyId, Delivery, DeliveryId, Post, PostId, ProjectId } from "@herald/core"
import { DateTime, Equal } from "effect"

const at = DateTime.unsafeMake("2026-03-01T09:00:00Z")
const later = DateTime.unsafeMake("2026-03-01T09:05:00Z")

const post = new Post({
  id: PostId.make("11111111-1111-4111-8111-111111111111"),
  projectId: ProjectId.make("22222222-2222-4222-8222-222222222222"),
  version: 1,
  status: "scheduled",
  caption: "hello",
  signature: "",
  skipSignature: false,
  accountIds: [AccountId.make("33333333-3333-4333-8333-333333333333")],
  mediaIds: [],
  scheduledAt: at,
  platformConfigurations: {},
  author: { keyId: ApiKeyId.make("44444444-4444-4444-8444-444444444444"), keyName: "ops", kind: "human", surface: "rest" },
  origin: { keyId: ApiKeyId.make("44444444-4444-4444-8444-444444444444"), keyName: "ops", kind: "human", surface: "rest" },
  decision: null,
  supersedes: null,
  supersededBy: null,
  idempotencyKey: null,
  createdAt: at,
  updatedAt: at
})

const delivery = new Delivery({
  id: DeliveryId.make("55555555-5555-4555-8555-555555555555"),
  postId: post.id,
  projectId: post.projectId,
  accountId: post.accountIds[0]!,
  platform: "x",
  username: "acme",
  status: "queued",
  dueAt: at,
  url: null,
  platformPostId: null,
  error: null,
  note: null,
  attempts: [],
  takedown: null,
  createdAt: at,
  updatedAt: at
})

/** Every field of `copy` is the changed value, or else the original's very value. */
const expectCopy = (copy: object, original: object, changes: object) => {
  expect(Object.keys(copy)).toEqual(Object.keys(original))
  for (const [key, value] of Object.entries(copy)) {
    expect(value).toBe(key in changes ? (changes as Record<string, unknown>)[key] : (original as Record<string, unknown>)[key])
  }
}

describe("copies made with `with`", () => {
  it("a post's copy is a Post with the changes over the original's values, the original untouched", () => {
    const changes = { version: 2, status: "processing" as const, updatedAt: later }
    const copy = post.with(changes)
    expect(copy).toBeInstanceOf(Post)
    expectCopy(copy, post, changes)
    expect(Equal.equals(copy, post.with({}))).toBe(false)
    expect(Equal.equals(post.with({}), post)).toBe(true)
    expect(post.version).toBe(1)
  })

  it("a delivery's copy is a Delivery with the changes over the original's values, getters included", () => {
    const changes = { status: "success" as const, dueAt: null, url: "https://x.test/1", updatedAt: later }
    const copy = delivery.with(changes)
    expect(copy).toBeInstanceOf(Delivery)
    expectCopy(copy, delivery, changes)
    expect(Equal.equals(delivery.with({}), delivery)).toBe(true)
    expect(copy.settled).toBe(true)
    expect(copy.wentOut).toBe(true)
    expect(delivery.settled).toBe(false)
  })

  it("fromValid builds what the constructor builds from the same values, own symbols included", () => {
    const fields = { ...post }
    const made = Post.fromValid(fields)
    const built = new Post(fields, true)
    expect(made).toBeInstanceOf(Post)
    expect(Reflect.ownKeys(made)).toEqual(Reflect.ownKeys(built))
    expect(Equal.equals(made, built)).toBe(true)
    const deliveryFields = { ...delivery }
    const madeDelivery = Delivery.fromValid(deliveryFields)
    const builtDelivery = new Delivery(deliveryFields, true)
    expect(Reflect.ownKeys(madeDelivery)).toEqual(Reflect.ownKeys(builtDelivery))
    expect(Equal.equals(madeDelivery, builtDelivery)).toBe(true)
    expect(madeDelivery.settled).toBe(false)
  })
})
