import { describe, expect, it } from "@effect/vitest"
import {
  AccountAdmin,
  AccountStore,
  completeConnection,
  createProject,
  type Credentials,
  loginConnection,
  makeAccountTokens,
  type OAuthProvider,
  OAuthProviders,
  type PasswordLogin,
  PlatformCallFailed,
  startConnection
} from "@herald/core"
import { InMemoryData, makeInMemoryAdmin, makeInMemoryStores, sequentialIds, sequentialSecrets } from "@herald/core/memory"
import { DateTime, Duration, Effect, Layer, Option, Redacted, TestClock } from "effect"

const refused = (code: string) =>
  new PlatformCallFailed({ error: { category: "auth_expired", code, message: `refused: ${code}` }, retryAfterMs: null })

/**
 * A platform in memory: codes it issued (checked against the verifier the state kept), tokens
 * that expire an hour after issue, refresh tokens that rotate, and a switch to refuse refreshes.
 */
const platform = () => {
  const issued = new Map<string, string>()
  const calls: Array<string> = []
  let serial = 0
  let refuseRefresh = false
  const grant = (now: DateTime.Utc) => {
    serial++
    return { credentials: { access_token: `at${serial}`, refresh_token: `rt${serial}` }, expiresAt: DateTime.add(now, { hours: 1 }) }
  }
  const provider: OAuthProvider = {
    platform: "threads",
    start: ({ codeChallenge, redirectUri, state }) =>
      Effect.sync(() => {
        issued.set(`code-for-${state}`, codeChallenge)
        return { authorizeUrl: `https://consent.test/authorize?state=${state}&redirect_uri=${encodeURIComponent(redirectUri)}`, carried: null }
      }),
    exchange: ({ code, codeVerifier }) =>
      Effect.gen(function*() {
        calls.push("exchange")
        // The in-memory mint's fixed pair: this verifier goes with that challenge.
        if (issued.get(code) !== "4Ydo1AdrSbg-bpoGaAMZgwjalH58BJ9R4IgT_xezNmc" || codeVerifier !== "dBjftJeZ4CVP-mJ92K9hAJRb3Bw3Wq3L9YZ1dZ1vY5c") {
          return yield* refused("invalid_grant")
        }
        issued.delete(code)
        return grant(yield* DateTime.now)
      }),
    refresh: () =>
      Effect.gen(function*() {
        calls.push("refresh")
        if (refuseRefresh) return yield* refused("invalid_grant")
        return grant(yield* DateTime.now)
      }),
    identify: () => Effect.succeed({ platformAccountId: "42", username: "@acme" })
  }
  const login: PasswordLogin = {
    platform: "bluesky",
    login: ({ identifier, password }) =>
      Redacted.value(password) === "right-password"
        ? Effect.map(DateTime.now, (now) => ({ ...grant(now), platformAccountId: "did:plc:acme", username: identifier }))
        : Effect.fail(refused("AuthenticationRequired")),
    refresh: provider.refresh
  }
  return { provider, login, calls, refuseRefreshes: () => void (refuseRefresh = true) }
}

const world = (fake: ReturnType<typeof platform>) => {
  const data = new InMemoryData()
  return {
    data,
    layer: Layer.mergeAll(
      makeInMemoryStores(data),
      makeInMemoryAdmin(data),
      sequentialIds(),
      sequentialSecrets(),
      OAuthProviders.layer({
        oauth: [fake.provider],
        logins: [fake.login],
        unconfigured: [{ platform: "linkedin", variables: ["HERALD_LINKEDIN_CLIENT_ID", "HERALD_LINKEDIN_CLIENT_SECRET"] }]
      })
    )
  }
}

const newProject = createProject({ name: "Acme", timezone: "UTC", approval: "autopilot", signature: "", plan: "active" })
const from = { caller: "admin", publicUrl: "https://herald.test/" }

describe("connecting accounts", () => {
  it.effect("a consent connects the account once; the state expires after 10 minutes and cannot be reused", () => {
    const fake = platform()
    return Effect.gen(function*() {
      const project = yield* newProject
      const started = yield* startConnection(project.id, "threads", from)
      expect(started.redirectUri).toBe("https://herald.test/oauth/callback/threads")
      const state = new URL(started.authorizeUrl).searchParams.get("state")!
      const answer = { state, code: Option.some(`code-for-${state}`), denied: Option.none() }
      const account = yield* completeConnection("threads", answer)
      expect(account).toMatchObject({ platform: "threads", username: "acme", route: "direct", status: "active" })
      const stored = yield* Effect.flatMap(AccountAdmin, (admin) => admin.credentialsFor(account.id))
      expect(Option.getOrThrow(stored)).toMatchObject({ access_token: "at1", refresh_token: "rt1", expires_at: "1970-01-01T01:00:00.000Z" })
      expect(yield* Effect.flip(completeConnection("threads", answer))).toMatchObject({ _tag: "ConnectionStateInvalid", reason: "unknown" })

      const late = yield* startConnection(project.id, "threads", from)
      const lateState = new URL(late.authorizeUrl).searchParams.get("state")!
      yield* TestClock.adjust(Duration.minutes(10))
      expect(yield* Effect.flip(completeConnection("threads", { state: lateState, code: Option.some(`code-for-${lateState}`), denied: Option.none() })))
        .toMatchObject({ _tag: "ConnectionStateInvalid", reason: "expired" })
      expect(fake.calls).toEqual(["exchange"])
      expect(yield* Effect.flatMap(AccountStore, (store) => store.list(project.id))).toHaveLength(1)
    }).pipe(Effect.provide(world(fake).layer))
  })

  it.effect("a declined consent connects nothing; an unconfigured or unserved platform says what to do", () => {
    const fake = platform()
    return Effect.gen(function*() {
      const project = yield* newProject
      const started = yield* startConnection(project.id, "threads", from)
      const state = new URL(started.authorizeUrl).searchParams.get("state")!
      expect(yield* Effect.flip(completeConnection("threads", { state, code: Option.none(), denied: Option.some("access_denied") })))
        .toMatchObject({ _tag: "ConnectionRefused", code: "access_denied" })
      const unconfigured = yield* Effect.flip(startConnection(project.id, "linkedin", from))
      expect(unconfigured.message).toContain("set HERALD_LINKEDIN_CLIENT_ID and HERALD_LINKEDIN_CLIENT_SECRET")
      expect(yield* Effect.flip(startConnection(project.id, "pinterest", from))).toMatchObject({ _tag: "DirectRouteUnavailable" })
      expect(yield* Effect.flip(startConnection(project.id, "bluesky", from))).toMatchObject({ _tag: "ConnectionMethodMismatch", use: "login" })
      expect(yield* Effect.flatMap(AccountStore, (store) => store.list(project.id))).toHaveLength(0)
    }).pipe(Effect.provide(world(fake).layer))
  })

  it.effect("a login connects with the session's tokens only, and a second login reconnects the same account", () => {
    const fake = platform()
    return Effect.gen(function*() {
      const project = yield* newProject
      const wrong = yield* Effect.flip(loginConnection(project.id, "bluesky", { identifier: "acme.test", password: Redacted.make("wrong") }))
      expect(wrong).toMatchObject({ _tag: "ConnectionRefused", code: "AuthenticationRequired" })
      const first = yield* loginConnection(project.id, "bluesky", { identifier: "acme.test", password: Redacted.make("right-password") })
      yield* Effect.flatMap(AccountAdmin, (admin) => admin.setStatus(first.id, "needs_reconnect"))
      const second = yield* loginConnection(project.id, "bluesky", { identifier: "acme.test", password: Redacted.make("right-password") })
      expect(second.id).toBe(first.id)
      expect(second.status).toBe("active")
      const stored = Option.getOrThrow(yield* Effect.flatMap(AccountAdmin, (admin) => admin.credentialsFor(first.id)))
      expect(JSON.stringify(stored)).not.toContain("right-password")
      expect(stored.access_token).toBe("at2")
    }).pipe(Effect.provide(world(fake).layer))
  })
})

describe("AccountTokens", () => {
  it.effect("refreshes within 5 minutes of expiry, once for concurrent callers; a refused refresh marks needs_reconnect", () => {
    const fake = platform()
    const { data, layer } = world(fake)
    return Effect.gen(function*() {
      const project = yield* newProject
      const account = yield* loginConnection(project.id, "bluesky", { identifier: "acme.test", password: Redacted.make("right-password") })
      const tokens = yield* makeAccountTokens((platform) => Effect.succeed(platform === "bluesky" ? fake.login.refresh : undefined))
      expect((yield* tokens.current(account)).access_token).toBe("at1")
      yield* TestClock.adjust(Duration.minutes(54))
      expect((yield* tokens.current(account)).access_token).toBe("at1")
      expect(fake.calls).toEqual([])
      yield* TestClock.adjust(Duration.minutes(2))
      const both = yield* Effect.all([tokens.current(account), tokens.current(account)], { concurrency: 2 })
      expect(both.map((credentials: Credentials) => credentials.access_token)).toEqual(["at2", "at2"])
      expect(fake.calls).toEqual(["refresh"])

      // A 401 on the token another caller already replaced uses the new one; on the current one, refreshes.
      const old = both[0]!
      expect((yield* tokens.afterRefusal(account, { ...old, access_token: "at1" })).access_token).toBe("at2")
      expect((yield* tokens.afterRefusal(account, old)).access_token).toBe("at3")
      expect(fake.calls).toEqual(["refresh", "refresh"])

      fake.refuseRefreshes()
      const failure = yield* Effect.flip(tokens.afterRefusal(account, { access_token: "at3" }))
      expect(failure.error).toMatchObject({ category: "auth_expired", code: "invalid_grant" })
      expect(data.accounts.get(account.id)?.status).toBe("needs_reconnect")
      expect(data.outbox.map((event) => event.kind)).toEqual(["account.needs_reconnect"])
    }).pipe(Effect.provide(layer))
  })
})
