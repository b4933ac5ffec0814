import type { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { ApiKeyHash, DashboardSessions } from "@herald/core"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { DateTime, Duration, Effect, Layer, Option } from "effect"
import { StorageLive } from "../src/index.js"
import { PostgresDashboardSessions } from "../src/PostgresDashboardSessions.js"
import { credentialsKey, storageOnThrowawaySchema } from "./fixtures.js"

const url = process.env.DATABASE_URL ?? ""

const suite = (name: string, storage: () => Layer.Layer<SqlClient.SqlClient, unknown>) =>
  layer(PostgresDashboardSessions.pipe(Layer.provide(Layer.suspend(storage))), { timeout: 60_000 })(name, (it) => {
    it.effect("finds a session until it expires, and never after sign-out", () =>
      Effect.gen(function*() {
        const sessions = yield* DashboardSessions
        const signedIn = DateTime.unsafeMake("2026-11-24T09:00:00Z")
        const expiresAt = DateTime.addDuration(signedIn, Duration.hours(12))
        const token = "a".repeat(64)
        const session = { role: "reviewer" as const, credentialHash: ApiKeyHash.make("c".repeat(64)), expiresAt }
        yield* sessions.open(token, session, signedIn)
        const during = yield* sessions.find(token, DateTime.addDuration(signedIn, Duration.hours(11)))
        const after = yield* sessions.find(token, DateTime.addDuration(signedIn, Duration.hours(12)))
        yield* sessions.open("b".repeat(64), session, signedIn)
        yield* sessions.end("b".repeat(64))
        const ended = yield* sessions.find("b".repeat(64), signedIn)
        expect(Option.map(during, (live) => [live.role, live.credentialHash, DateTime.formatIso(live.expiresAt)])).toEqual(
          Option.some(["reviewer", session.credentialHash, "2026-11-24T21:00:00.000Z"])
        )
        expect(Option.isNone(after)).toBe(true)
        expect(Option.isNone(ended)).toBe(true)
      }))
  })

suite("dashboard sessions on the embedded database", () =>
  StorageLive.layer({ databaseUrl: Option.none(), dataDir: embeddedDataDir("herald-sessions-"), credentialsKey }))

describe.skipIf(url === "")("dashboard sessions on PostgreSQL (skipped without DATABASE_URL: needs PostgreSQL)", () => {
  suite("PostgreSQL", () => storageOnThrowawaySchema(url))
})
