import { describe, expect, it } from "@effect/vitest"
import {
  AccountId,
  ApiKeyHash,
  ApiKeyId,
  connectAccount,
  createApiKey,
  createProject,
  createWebhookEndpoint,
  getProject,
  listAccounts,
  listApiKeys,
  listProjects,
  listWebhookEndpoints,
  makeAuthenticator,
  noGuardrails,
  OAuthProviders,
  ProjectId,
  removeWebhookEndpoint,
  revokeApiKey,
  setAccountStatus,
  updateWebhookEndpoint,
  updateProject,
  WebhookEndpointId
} from "@herald/core"
import {
  InMemoryApiKeys,
  InMemoryData,
  inMemoryRateLimits,
  makeInMemoryAdmin,
  makeInMemoryStores,
  sequentialIds,
  sequentialSecrets,
  webhookDestinationsRefusing
} from "@herald/core/memory"
import { Effect, Layer, Redacted } from "effect"

const unknownProject = ProjectId.make("99999999-0000-4000-8000-000000000000")

/** Every admin port in memory; webhook URLs on host 10.0.0.1 are refused. */
const admin = () => {
  const data = new InMemoryData()
  return Layer.mergeAll(
    makeInMemoryStores(data),
    makeInMemoryAdmin(data),
    new InMemoryApiKeys().layer,
    inMemoryRateLimits(),
    sequentialIds(),
    sequentialSecrets(),
    webhookDestinationsRefusing(["10.0.0.1"]),
    OAuthProviders.none
  )
}

const settings = { name: "Acme", timezone: "Europe/Paris", approval: "copilot", signature: "", plan: "active" } as const

describe("admin use cases: projects", () => {
  it.effect("creates a project with the guardrail rules given (the rest off) and updates only what is given", () =>
    Effect.gen(function*() {
      const project = yield* createProject({ ...settings, guardrails: { banned_words: ["spam"] } })
      expect(project.guardrails).toEqual({ ...noGuardrails, banned_words: ["spam"] })
      expect(yield* getProject(project.id)).toEqual(project)
      const updated = yield* updateProject(project.id, { approval: "autopilot", guardrails: { daily_post_cap: 5 } })
      expect(updated).toMatchObject({ name: "Acme", approval: "autopilot", timezone: "Europe/Paris" })
      expect(updated.guardrails).toEqual({ ...noGuardrails, banned_words: ["spam"], daily_post_cap: 5 })
      expect(yield* listProjects).toEqual([updated])
    }).pipe(Effect.provide(admin())))

  it.effect("an unknown project is ProjectNotFound for every operation reached through it", () =>
    Effect.gen(function*() {
      const failures = yield* Effect.all([
        Effect.flip(getProject(unknownProject)),
        Effect.flip(updateProject(unknownProject, { name: "x" })),
        Effect.flip(listApiKeys(unknownProject)),
        Effect.flip(createApiKey(unknownProject, { name: "", kind: "agent", scopes: ["posts:read"] })),
        Effect.flip(revokeApiKey(unknownProject, ApiKeyId.make("00000000-0000-4000-8000-000000000001"))),
        Effect.flip(listAccounts(unknownProject)),
        Effect.flip(connectAccount(unknownProject, { platform: "x", username: "a", route: "simulator" })),
        Effect.flip(listWebhookEndpoints(unknownProject)),
        Effect.flip(createWebhookEndpoint(unknownProject, { url: "https://example.com/h", kinds: ["post.published"] })),
        Effect.flip(updateWebhookEndpoint(unknownProject, WebhookEndpointId.make("00000000-0000-4000-8000-000000000001"), { enabled: true })),
        Effect.flip(removeWebhookEndpoint(unknownProject, WebhookEndpointId.make("00000000-0000-4000-8000-000000000001")))
      ])
      for (const failure of failures) expect(failure).toMatchObject({ _tag: "ProjectNotFound", projectId: unknownProject })
      expect(yield* listProjects).toEqual([])
    }).pipe(Effect.provide(admin())))
})

describe("admin use cases: API keys", () => {
  it.effect("a created key is shown once, redacted, and authenticates as its project with its scopes (deduplicated)", () =>
    Effect.gen(function*() {
      const project = yield* createProject(settings)
      const { key, summary } = yield* createApiKey(project.id, { name: "bot", kind: "agent", scopes: ["posts:read", "posts:read"] })
      expect(String(key)).not.toContain(Redacted.value(key))
      expect(Redacted.value(key)).toMatch(/^hk_agent_/)
      expect(summary).toMatchObject({ projectId: project.id, name: "bot", kind: "agent", scopes: ["posts:read"], rateLimitPerMinute: 60, dailyPostCap: null, revokedAt: null })
      expect(Redacted.value(key).startsWith(summary.prefix)).toBe(true)
      expect(yield* listApiKeys(project.id)).toEqual([summary])
    }).pipe(Effect.provide(admin())))

  it.effect("a revoked key keeps its row with the revocation date and no longer authenticates; another project's key is ApiKeyNotFound", () =>
    Effect.gen(function*() {
      const mine = yield* createProject(settings)
      const theirs = yield* createProject({ ...settings, name: "Other" })
      const { summary } = yield* createApiKey(mine.id, { name: "", kind: "human", scopes: ["posts:approve"], rateLimitPerMinute: 5 })
      // sequentialSecrets hashes the first key it mints to 1 in hex.
      const { identify } = yield* makeAuthenticator
      const hash = ApiKeyHash.make("1".padStart(64, "0"))
      expect((yield* identify(hash)).keyId).toBe(summary.id)
      expect(yield* Effect.flip(revokeApiKey(theirs.id, summary.id))).toMatchObject({ _tag: "ApiKeyNotFound", keyId: summary.id })
      const revoked = yield* revokeApiKey(mine.id, summary.id)
      expect(revoked).toMatchObject({ id: summary.id, rateLimitPerMinute: 5 })
      expect(revoked.revokedAt).not.toBeNull()
      expect((yield* Effect.flip(identify(hash)))._tag).toBe("ApiKeyRevoked")
    }).pipe(Effect.provide(admin())))
})

describe("admin use cases: accounts", () => {
  it.effect("connects a simulator account (a leading @ dropped) and changes its status; other routes are refused, nothing stored", () =>
    Effect.gen(function*() {
      const project = yield* createProject(settings)
      const account = yield* connectAccount(project.id, { platform: "bluesky", username: "@acme", route: "simulator" })
      expect(account).toMatchObject({ projectId: project.id, platform: "bluesky", username: "acme", status: "active" })
      expect(yield* Effect.flip(connectAccount(project.id, { platform: "x", username: "acme", route: "direct" })))
        .toMatchObject({ _tag: "DirectRouteUnavailable", platform: "x" })
      expect(yield* Effect.flip(connectAccount(project.id, { platform: "x", username: "acme", route: "aggregator" })))
        .toMatchObject({ _tag: "AccountRouteNotSupported", route: "aggregator" })
      const paused = yield* setAccountStatus(project.id, account.id, "disconnected")
      expect(paused.status).toBe("disconnected")
      expect(yield* listAccounts(project.id)).toEqual([paused])
    }).pipe(Effect.provide(admin())))

  it.effect("another project's account, or an unknown one, is AccountNotFound", () =>
    Effect.gen(function*() {
      const mine = yield* createProject(settings)
      const theirs = yield* createProject({ ...settings, name: "Other" })
      const account = yield* connectAccount(mine.id, { platform: "x", username: "acme", route: "simulator" })
      expect(yield* Effect.flip(setAccountStatus(theirs.id, account.id, "disconnected")))
        .toMatchObject({ _tag: "AccountNotFound", accountId: account.id })
      const unknown = AccountId.make("99999999-0000-4000-8000-000000000001")
      expect(yield* Effect.flip(setAccountStatus(mine.id, unknown, "active"))).toMatchObject({ _tag: "AccountNotFound" })
      expect((yield* listAccounts(mine.id))[0]?.status).toBe("active")
    }).pipe(Effect.provide(admin())))
})

describe("admin use cases: webhook endpoints", () => {
  it.effect("creates an enabled endpoint with a redacted secret, disables it, removes it once", () =>
    Effect.gen(function*() {
      const project = yield* createProject(settings)
      const { endpoint, secret } = yield* createWebhookEndpoint(project.id, {
        url: "https://example.com/hook",
        kinds: ["post.published", "post.published", "post.failed"]
      })
      expect(endpoint).toMatchObject({ enabled: true, consecutiveFailures: 0, kinds: ["post.published", "post.failed"] })
      expect(Redacted.value(secret)).toMatch(/^whsec_/)
      expect(yield* updateWebhookEndpoint(project.id, endpoint.id, { enabled: false })).toMatchObject({ id: endpoint.id, enabled: false })
      expect(yield* updateWebhookEndpoint(project.id, endpoint.id, { kinds: ["post.rejected", "post.rejected", "post.approved"] }))
        .toMatchObject({ enabled: false, kinds: ["post.rejected", "post.approved"] })
      expect(yield* updateWebhookEndpoint(project.id, endpoint.id, { enabled: true })).toMatchObject({ enabled: true, kinds: ["post.rejected", "post.approved"] })
      yield* removeWebhookEndpoint(project.id, endpoint.id)
      expect(yield* listWebhookEndpoints(project.id)).toEqual([])
      expect(yield* Effect.flip(removeWebhookEndpoint(project.id, endpoint.id)))
        .toMatchObject({ _tag: "WebhookEndpointNotFound", endpointId: endpoint.id })
      expect(yield* Effect.flip(updateWebhookEndpoint(project.id, endpoint.id, { kinds: ["post.failed"] })))
        .toMatchObject({ _tag: "WebhookEndpointNotFound" })
    }).pipe(Effect.provide(admin())))

  it.effect("a refused destination is WebhookDestinationRefused and creates nothing", () =>
    Effect.gen(function*() {
      const project = yield* createProject(settings)
      expect(yield* Effect.flip(createWebhookEndpoint(project.id, { url: "https://10.0.0.1/hook", kinds: ["post.published"] })))
        .toMatchObject({ _tag: "WebhookDestinationRefused" })
      expect(yield* listWebhookEndpoints(project.id)).toEqual([])
    }).pipe(Effect.provide(admin())))
})
