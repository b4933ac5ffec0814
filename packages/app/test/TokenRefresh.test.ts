import { randomBytes } from "node:crypto"
import {
  AccountStore,
  completeConnection,
  createProject,
  makeAccountTokens,
  OAuthProviders,
  startConnection
} from "@herald/core"
import { NodeSecretMint } from "@herald/http-api"
import { OutboundGuard } from "@herald/outbound"
import { Kit } from "@herald/publishers"
import { fakePlatform, OAuthFake } from "@herald/publishers/testing"
import { StorageLive } from "@herald/storage-postgres"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RandomIds } from "../src/Engine.js"
import { databaseUrl, throwawaySchema } from "./TestDatabase.js"

/**
 * Two processes' worth of Herald (two storage layers, each with its own pool) on one PostgreSQL
 * database, refreshing one account's token at the same moment: the row lock lets one of them call
 * the token endpoint; the other waits, then uses what the first stored.
 */
describe.skipIf(databaseUrl === "")("token refresh across processes on PostgreSQL (needs DATABASE_URL)", () => {
  const credentialsKey = Redacted.make(randomBytes(32).toString("base64"))
  const fake = new OAuthFake({ clientId: "client", clientSecret: "secret", expiresIn: 60, refreshDelayMs: 300 })
  let schema: Awaited<ReturnType<typeof throwawaySchema>>
  const runtimes: Array<ManagedRuntime.ManagedRuntime<never, unknown>> = []

  beforeAll(async () => {
    await new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve))
    schema = await throwawaySchema("refresh")
  })
  afterAll(async () => {
    for (const runtime of runtimes) await runtime.dispose()
    await schema?.drop()
    await fake.close()
  })

  /** One process: its own pool on the schema, the guarded client reaching the fake on loopback, the fake's provider. */
  const instance = () => {
    const endpoints: Kit.PlatformEndpoints = {
      platform: fakePlatform,
      apiBaseUrl: fake.url,
      authBaseUrl: fake.url,
      clientId: Option.some("client"),
      clientSecret: Option.some(Redacted.make("secret"))
    }
    const http = Kit.PlatformHttpLive.pipe(Layer.provide(OutboundGuard.layer({ allowLoopback: true })))
    const provider = Kit.oauth2Provider({
      endpoints,
      authorizePath: "/oauth/authorize",
      tokenUrl: "/oauth/token",
      scopes: ["posts.write"],
      clientAuthentication: "basic",
      identify: () => Effect.succeed({ platformAccountId: "1001", username: "acme" })
    })
    const providers = Layer.effect(
      OAuthProviders,
      Effect.map(provider, (oauth) => OAuthProviders.make({ oauth: [oauth], logins: [], unconfigured: [] }))
    ).pipe(Layer.provide(http))
    const runtime = ManagedRuntime.make(Layer.mergeAll(
      StorageLive.layer({ databaseUrl: Option.some(Redacted.make(schema.url)), dataDir: "unused", credentialsKey, maxConnections: 4 }),
      providers,
      RandomIds,
      NodeSecretMint
    ))
    runtimes.push(runtime as ManagedRuntime.ManagedRuntime<never, unknown>)
    const tokens = runtime.runPromise(Effect.flatMap(OAuthProviders, (methods) => {
      const [method] = methods.methods(fakePlatform)
      return makeAccountTokens(() => Effect.succeed(method?._tag === "OAuth" ? method.provider.refresh : undefined))
    }))
    return { runtime, tokens }
  }

  it("two processes refreshing one account at once make one token call and use the same new token", async () => {
    const first = instance()
    // Migrated by the first before the second opens its pool.
    await first.tokens
    const second = instance()

    // Connected through the flow: the consent URL followed to the fake, its answer given to the callback's use case.
    const account = await first.runtime.runPromise(Effect.gen(function*() {
      const project = yield* createProject({ name: "Refresh", timezone: "UTC", approval: "autopilot", signature: "", plan: "active" })
      const started = yield* startConnection(project.id, fakePlatform, { caller: "test", publicUrl: "https://herald.test" })
      const consented = yield* Effect.promise(() => fetch(started.authorizeUrl, { redirect: "manual" }))
      const answer = new URL(consented.headers.get("location")!)
      yield* completeConnection(fakePlatform, {
        state: answer.searchParams.get("state")!,
        code: Option.some(answer.searchParams.get("code")!),
        denied: Option.none()
      })
      const [connected] = yield* Effect.flatMap(AccountStore, (store) => store.list(project.id))
      return connected!
    }))
    expect(fake.tokenCalls).toEqual(["authorization_code"])

    // The stored token expires within the refresh margin (60 s); the next one lives an hour.
    fake.expiresIn = 3600
    const [tokensA, tokensB] = await Promise.all([first.tokens, second.tokens])
    const [a, b] = await Promise.all([
      first.runtime.runPromise(tokensA.current(account)),
      second.runtime.runPromise(tokensB.current(account))
    ])
    expect(fake.refreshes()).toBe(1)
    expect(a.access_token).toBe(b.access_token)
    // Both see the refreshed token from then on, with no further call.
    expect((await second.runtime.runPromise(tokensB.current(account))).access_token).toBe(a.access_token)
    expect(fake.refreshes()).toBe(1)
  }, 60_000)
})
