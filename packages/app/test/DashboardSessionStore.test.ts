import { randomBytes } from "node:crypto"
import { hashApiKey, DashboardSessions } from "@herald/http-api"
import { StorageLive } from "@herald/storage-postgres"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { DateTime, Duration, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { PostgresDashboardSessions } from "../src/DashboardSessionStore.js"
import { databaseUrl, throwawaySchema } from "./TestDatabase.js"

const sessionsOn = (databaseUrlOfTest: string | undefined) =>
  ManagedRuntime.make(PostgresDashboardSessions.pipe(Layer.provide(StorageLive.layer({
    databaseUrl: Option.map(Option.fromNullable(databaseUrlOfTest), Redacted.make),
    dataDir: databaseUrlOfTest === undefined ? embeddedDataDir("herald-sessions-") : "unused",
    credentialsKey: Redacted.make(randomBytes(32).toString("base64")),
    maxConnections: 2
  }))))

const suite = (start: () => Promise<ManagedRuntime.ManagedRuntime<DashboardSessions, unknown>>) => {
  let runtime: ManagedRuntime.ManagedRuntime<DashboardSessions, unknown> | undefined
  afterAll(() => runtime?.dispose())

  it("finds a session until it expires, and never after sign-out", async () => {
    runtime = await start()
    const signedIn = DateTime.unsafeMake("2026-11-24T09:00:00Z")
    const expiresAt = DateTime.addDuration(signedIn, Duration.hours(12))
    const token = "a".repeat(64)
    const session = { role: "reviewer" as const, credentialHash: hashApiKey("hk_human_example"), expiresAt }
    const found = await runtime.runPromise(Effect.gen(function*() {
      const sessions = yield* DashboardSessions
      yield* sessions.open(token, session, signedIn)
      const during = yield* sessions.find(token, DateTime.addDuration(signedIn, Duration.hours(11)))
      const after = yield* sessions.find(token, DateTime.addDuration(signedIn, Duration.hours(12)))
      yield* sessions.open("b".repeat(64), session, signedIn)
      yield* sessions.end("b".repeat(64))
      const ended = yield* sessions.find("b".repeat(64), signedIn)
      return { during, after, ended }
    }))
    expect(Option.map(found.during, (live) => [live.role, live.credentialHash, DateTime.formatIso(live.expiresAt)])).toEqual(
      Option.some(["reviewer", session.credentialHash, "2026-11-24T21:00:00.000Z"])
    )
    expect(Option.isNone(found.after)).toBe(true)
    expect(Option.isNone(found.ended)).toBe(true)
  })
}

describe("dashboard sessions on the embedded database", () => {
  suite(async () => sessionsOn(undefined))
})

describe.skipIf(databaseUrl === "")("dashboard sessions on PostgreSQL (skipped without DATABASE_URL: needs PostgreSQL)", () => {
  let schema: Awaited<ReturnType<typeof throwawaySchema>> | undefined
  afterAll(() => schema?.drop())
  suite(async () => {
    schema = await throwawaySchema("herald_sessions")
    return sessionsOn(schema.url)
  })
})
