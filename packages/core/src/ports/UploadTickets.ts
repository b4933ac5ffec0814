import { Context, type DateTime, Effect, Layer, Option, Schema } from "effect"
import { ApiKeyId, ProjectId } from "../Ids.js"

/** A slot for one upload, redeemed once at POST /media (or answered directly at its attach URL). */
export class UploadTicket extends Schema.Class<UploadTicket>("UploadTicket")({
  ticket: Schema.String,
  projectId: ProjectId,
  keyId: ApiKeyId,
  maxBytes: Schema.Int,
  createdAt: Schema.DateTimeUtc,
  expiresAt: Schema.DateTimeUtc,
  claimedAt: Schema.NullOr(Schema.DateTimeUtc)
}) {
  /** Where a direct upload to the bucket lands. */
  get storageKey(): string {
    return `uploads/${this.ticket}`
  }
}

export class UploadTickets extends Context.Tag("@herald/core/UploadTickets")<UploadTickets, {
  readonly create: (ticket: UploadTicket) => Effect.Effect<void>
  readonly find: (ticket: string) => Effect.Effect<Option.Option<UploadTicket>>
  /** Marks the ticket used; false when another redemption claimed it first. */
  readonly claim: (ticket: string, at: DateTime.Utc) => Effect.Effect<boolean>
}>() {
  static readonly inMemory = (): Layer.Layer<UploadTickets> => {
    const held = new Map<string, UploadTicket>()
    return Layer.succeed(UploadTickets, UploadTickets.of({
      create: (ticket) => Effect.sync(() => void held.set(ticket.ticket, ticket)),
      find: (ticket) => Effect.sync(() => Option.fromNullable(held.get(ticket))),
      claim: (ticket, at) =>
        Effect.sync(() => {
          const found = held.get(ticket)
          if (found === undefined || found.claimedAt !== null) return false
          held.set(ticket, new UploadTicket({ ...found, claimedAt: at }))
          return true
        })
    }))
  }
}
