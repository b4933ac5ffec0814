import { describe, expect, layer } from "@effect/vitest"
import { ApiKeyId, ProjectId, UploadTicket, UploadTickets } from "@herald/core"
import { DateTime, Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { StorageLive } from "../src/index.js"
import { embeddedDataDir } from "./EmbeddedSnapshot.js"
import { credentialsKey, storageOnThrowawaySchema } from "./fixtures.js"

const url = process.env.DATABASE_URL ?? ""
const t0 = DateTime.unsafeMake("2025-03-01T12:00:00.000Z")

const newTicket = () =>
  new UploadTicket({
    ticket: `upl_${randomUUID().replaceAll("-", "")}`,
    projectId: ProjectId.make(randomUUID()),
    keyId: ApiKeyId.make(randomUUID()),
    maxBytes: 100 * 1024 * 1024,
    createdAt: t0,
    expiresAt: DateTime.add(t0, { minutes: 10 }),
    claimedAt: null
  })

// The claim is what keeps two uploads racing to one ticket to one media item (core's UploadMedia).
const suite = (name: string, storage: () => Layer.Layer<UploadTickets, unknown>) =>
  layer(Layer.suspend(storage), { timeout: 60_000 })(name, (it) => {
    it.effect("round-trips a ticket and finds nothing for an unknown one", () =>
      Effect.gen(function*() {
        const tickets = yield* UploadTickets
        const ticket = newTicket()
        yield* tickets.create(ticket)
        expect(yield* tickets.find(ticket.ticket)).toEqual(Option.some(ticket))
        expect(yield* tickets.find("upl_unknown")).toEqual(Option.none())
      }))

    it.effect("of 20 concurrent claims exactly one wins, and the claim is recorded", () =>
      Effect.gen(function*() {
        const tickets = yield* UploadTickets
        const ticket = newTicket()
        yield* tickets.create(ticket)
        const at = DateTime.add(t0, { minutes: 1 })
        const wins = yield* Effect.all(Array.from({ length: 20 }, () => tickets.claim(ticket.ticket, at)), { concurrency: 20 })
        expect(wins.filter(Boolean)).toHaveLength(1)
        expect(Option.map(yield* tickets.find(ticket.ticket), (t) => t.claimedAt)).toEqual(Option.some(at))
        expect(yield* tickets.claim("upl_unknown", at)).toBe(false)
      }))
  })

suite("UploadTickets on PGlite", () =>
  StorageLive.layer({ databaseUrl: Option.none(), dataDir: embeddedDataDir("herald-tickets-"), credentialsKey }))

describe.skipIf(url === "")("UploadTickets on PostgreSQL (skipped without DATABASE_URL: needs PostgreSQL)", () => {
  suite("PostgreSQL", () => storageOnThrowawaySchema(url))
})
