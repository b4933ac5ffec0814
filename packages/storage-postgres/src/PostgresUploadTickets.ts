import { SqlClient } from "@effect/sql"
import { traced, UploadTicket, UploadTickets } from "@herald/core"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { orDieInfra } from "./Infra.js"

interface TicketRow {
  readonly ticket: string
  readonly project_id: string
  readonly key_id: string
  readonly max_bytes: string | number
  readonly created_at: Date
  readonly expires_at: Date
  readonly claimed_at: Date | null
}

const decode = Schema.decodeUnknown(UploadTicket)

const fromRow = (row: TicketRow) =>
  decode({
    ticket: row.ticket,
    projectId: row.project_id,
    keyId: row.key_id,
    maxBytes: Number(row.max_bytes),
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    claimedAt: row.claimed_at === null ? null : row.claimed_at.toISOString()
  })

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return UploadTickets.of({
    create: traced("UploadTickets.create")((ticket) =>
      orDieInfra(sql`INSERT INTO upload_tickets ${
        sql.insert({
          ticket: ticket.ticket,
          project_id: ticket.projectId,
          key_id: ticket.keyId,
          max_bytes: ticket.maxBytes,
          created_at: DateTime.formatIso(ticket.createdAt),
          expires_at: DateTime.formatIso(ticket.expiresAt),
          claimed_at: ticket.claimedAt === null ? null : DateTime.formatIso(ticket.claimedAt)
        })
      }`)
    ),
    find: traced("UploadTickets.find")((ticket) =>
      orDieInfra(
        sql<TicketRow>`SELECT * FROM upload_tickets WHERE ticket = ${ticket}`.pipe(
          Effect.flatMap((rows) => rows.length === 0 ? Effect.succeed(Option.none()) : Effect.map(fromRow(rows[0]!), Option.some))
        )
      )
    ),
    // One UPDATE guarded on claimed_at: of two concurrent redemptions exactly one wins.
    claim: traced("UploadTickets.claim")((ticket, at) =>
      orDieInfra(
        sql`UPDATE upload_tickets SET claimed_at = ${DateTime.formatIso(at)}
            WHERE ticket = ${ticket} AND claimed_at IS NULL RETURNING ticket`
      ).pipe(Effect.map((rows) => rows.length === 1))
    )
  })
})

/** UploadTickets over the upload_tickets table. */
export const PostgresUploadTickets = Layer.effect(UploadTickets, make)
