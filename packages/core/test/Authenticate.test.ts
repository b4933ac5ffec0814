import { describe, expect, it } from "@effect/vitest"
import {
  AdminTokens,
  ApiKeyHash,
  ApiKeyId,
  ApiKeyStore,
  makeAuthenticator,
  noGuardrails,
  operatorKeyId,
  operatorName,
  operatorRateLimitPerMinute,
  Project,
  ProjectId,
  ProjectStore
} from "@herald/core"
import { InMemoryApiKeys, inMemoryRateLimits } from "@herald/core/memory"
import { DateTime, Duration, Effect, Layer, Option, TestClock } from "effect"

const projectId = ProjectId.make("10000000-0000-4000-8000-000000000001")
const keyId = ApiKeyId.make("30000000-0000-4000-8000-000000000001")
const hashOf = (digit: string) => ApiKeyHash.make(digit.repeat(64))

/** One key (hash "aaa…", two requests a minute) in fresh in-memory stores, the clock at 00:00:10. */
const world = Effect.gen(function*() {
  const keys = new InMemoryApiKeys()
  const layer = Layer.merge(keys.layer, inMemoryRateLimits())
  yield* TestClock.adjust(Duration.seconds(10))
  yield* Effect.provide(
    Effect.flatMap(ApiKeyStore, (store) =>
      store.create({
        id: keyId,
        projectId,
        name: "agent",
        hash: hashOf("a"),
        prefix: "hk_agent_abcd",
        kind: "agent",
        scopes: ["posts:read"],
        rateLimitPerMinute: 2,
        dailyPostCap: null,
        createdAt: DateTime.unsafeMake(0)
      })),
    layer
  )
  return { keys, authenticator: yield* Effect.provide(makeAuthenticator, layer) }
})

describe("authenticate", () => {
  it.effect("admits a known key with its principal and scopes, records its use and counts the request", () =>
    Effect.gen(function*() {
      const { authenticator, keys } = yield* world
      const { principal, verdict } = yield* authenticator.authenticate(hashOf("a"))
      expect(principal.keyId).toBe(keyId)
      expect(principal.projectId).toBe(projectId)
      expect(principal.scopes).toEqual(["posts:read"])
      expect(verdict).toMatchObject({ limit: 2, remaining: 1, allowed: true })
      expect(keys.lastUsedAt(keyId)).toEqual(DateTime.unsafeMake(10_000))
    }))

  it.effect("refuses an unknown key as ApiKeyUnknown", () =>
    Effect.gen(function*() {
      const { authenticator } = yield* world
      expect((yield* Effect.flip(authenticator.authenticate(hashOf("b"))))._tag).toBe("ApiKeyUnknown")
    }))

  it.effect("a revoked key is told apart from an unknown one, by identify and authenticate alike", () =>
    Effect.gen(function*() {
      const keys = new InMemoryApiKeys()
      const layer = Layer.merge(keys.layer, inMemoryRateLimits())
      const authenticator = yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* ApiKeyStore
          yield* store.create({
            id: keyId,
            projectId,
            name: "",
            hash: hashOf("c"),
            prefix: "hk_human_abcd",
            kind: "human",
            scopes: ["posts:read"],
            rateLimitPerMinute: 60,
            dailyPostCap: null,
            createdAt: DateTime.unsafeMake(0)
          })
          yield* store.revoke(projectId, keyId, DateTime.unsafeMake(0))
          return yield* makeAuthenticator
        }),
        layer
      )
      expect((yield* Effect.flip(authenticator.authenticate(hashOf("c"))))._tag).toBe("ApiKeyRevoked")
      expect((yield* Effect.flip(authenticator.identify(hashOf("c"))))._tag).toBe("ApiKeyRevoked")
      expect((yield* Effect.flip(authenticator.identify(hashOf("d"))))._tag).toBe("ApiKeyUnknown")
      expect(keys.lastUsedAt(keyId)).toBeNull()
    }))

  it.effect("past the key's limit, RateLimited carries the verdict and the seconds until the window resets", () =>
    Effect.gen(function*() {
      const { authenticator } = yield* world
      yield* authenticator.authenticate(hashOf("a"))
      yield* authenticator.authenticate(hashOf("a"))
      const refused = yield* Effect.flip(authenticator.authenticate(hashOf("a")))
      if (refused._tag !== "RateLimited") return expect.fail(`expected RateLimited, got ${refused._tag}`)
      expect(refused.verdict).toMatchObject({ limit: 2, remaining: 0, allowed: false })
      expect(refused.retryAfterSeconds).toBe(50)
      yield* TestClock.adjust(Duration.seconds(50))
      expect((yield* authenticator.authenticate(hashOf("a"))).verdict.remaining).toBe(1)
    }))

  it.effect("identify counts no request and records no use", () =>
    Effect.gen(function*() {
      const { authenticator, keys } = yield* world
      for (let i = 0; i < 3; i++) yield* authenticator.identify(hashOf("a"))
      expect(keys.lastUsedAt(keyId)).toBeNull()
      expect((yield* authenticator.authenticate(hashOf("a"))).verdict.remaining).toBe(1)
    }))
})

describe("authenticate: the admin token on a project (Herald-Project)", () => {
  const admin = hashOf("e")
  const project = new Project({
    id: projectId,
    name: "Acme",
    timezone: "UTC",
    approval: "copilot",
    signature: "",
    guardrails: noGuardrails,
    plan: "active"
  })
  /** A key store with no key, the admin token "eee…" known, and the one project. */
  const operatorWorld = Effect.gen(function*() {
    const layer = Layer.mergeAll(
      new InMemoryApiKeys().layer,
      inMemoryRateLimits(),
      Layer.succeed(AdminTokens, AdminTokens.of({ add: () => Effect.void, isKnown: (hash) => Effect.succeed(hash === admin) })),
      Layer.succeed(ProjectStore, ProjectStore.of({ get: (id) => Effect.succeed(id === projectId ? Option.some(project) : Option.none()) }))
    )
    return yield* Effect.provide(makeAuthenticator, layer)
  })
  const asAdmin = (project: string | undefined) => ({ adminToken: true, project })

  it.effect("makes the project's operator: human, every scope, no cap of its own, its own rate limit, a version-8 id of the token", () =>
    Effect.gen(function*() {
      const authenticator = yield* operatorWorld
      const { principal, verdict } = yield* authenticator.authenticate(admin, asAdmin(projectId))
      expect(principal).toMatchObject({ projectId, kind: "human", keyName: operatorName, dailyPostCap: null, surface: "rest" })
      expect([...principal.scopes].sort()).toEqual(["posts:approve", "posts:read", "posts:write"])
      expect(principal.keyId).toBe(operatorKeyId(admin))
      expect(principal.keyId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(verdict).toMatchObject({ limit: operatorRateLimitPerMinute, remaining: operatorRateLimitPerMinute - 1 })
      // The same id for every request of the token, another for another token.
      expect(operatorKeyId(admin)).toBe(operatorKeyId(hashOf("e")))
      expect(operatorKeyId(hashOf("f"))).not.toBe(operatorKeyId(admin))
    }))

  it.effect("refuses: no header, a malformed or unknown project, an unknown token, the header with a key", () =>
    Effect.gen(function*() {
      const authenticator = yield* operatorWorld
      const tagOf = (effect: Effect.Effect<unknown, { readonly _tag: string }>) => Effect.map(Effect.flip(effect), (error) => error._tag)
      expect(yield* tagOf(authenticator.authenticate(admin, asAdmin(undefined)))).toBe("ProjectHeaderMissing")
      expect(yield* tagOf(authenticator.authenticate(admin, asAdmin("acme")))).toBe("ProjectHeaderInvalid")
      const unknown = yield* Effect.flip(authenticator.authenticate(admin, asAdmin("10000000-0000-4000-8000-000000000009")))
      expect(unknown).toMatchObject({ _tag: "ProjectHeaderUnknown", projectId: "10000000-0000-4000-8000-000000000009" })
      expect(yield* tagOf(authenticator.authenticate(hashOf("f"), asAdmin(projectId)))).toBe("ApiKeyUnknown")
      const withKey = yield* Effect.flip(authenticator.authenticate(hashOf("a"), { adminToken: false, project: projectId }))
      expect(withKey).toMatchObject({ _tag: "ProjectHeaderInvalid", reason: "with_api_key" })
    }))

  it.effect("without the AdminTokens port (a host with no admin tokens), the admin token is unknown", () =>
    Effect.gen(function*() {
      const authenticator = yield* Effect.provide(makeAuthenticator, Layer.merge(new InMemoryApiKeys().layer, inMemoryRateLimits()))
      expect((yield* Effect.flip(authenticator.authenticate(admin, asAdmin(projectId))))._tag).toBe("ApiKeyUnknown")
    }))
})
