import { SqlClient } from "@effect/sql"
import {
  ApprovalChannel,
  ApprovalChannelNotFound,
  ApprovalChannels,
  ApprovalMessageId,
  type ClaimedApprovalMessage,
  ChannelRecipient,
  PostId,
  ProjectId,
  traced
} from "@herald/core"
import { DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { CredentialsCipher } from "./CredentialsCipher.js"
import { orDieInfra } from "./Infra.js"

interface ChannelRow {
  readonly id: string
  readonly project_id: string
  readonly kind: string
  readonly recipient: string
  readonly created_at: Date
}

const channelFromRow = (row: ChannelRow) =>
  Schema.decodeUnknown(ApprovalChannel)({
    id: row.id,
    projectId: row.project_id,
    kind: row.kind,
    recipient: row.recipient,
    createdAt: row.created_at.toISOString()
  })

interface ClaimRow extends ChannelRow {
  readonly message_id: string
  readonly post_id: string
  readonly post_version: number
  readonly attempts: number
  readonly address: string
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cipher = yield* CredentialsCipher

  const claimed = (row: ClaimRow) =>
    Effect.map(channelFromRow(row), (channel): ClaimedApprovalMessage => ({
      id: ApprovalMessageId.make(row.message_id),
      projectId: ProjectId.make(row.project_id),
      postId: PostId.make(row.post_id),
      postVersion: row.post_version,
      channel,
      address: Redacted.make(cipher.open(row.address, row.id)),
      attempts: row.attempts
    }))

  return ApprovalChannels.of({
    add: traced("ApprovalChannels.add")((channel, address) =>
      orDieInfra(sql`INSERT INTO approval_channels ${
        sql.insert({
          id: channel.id,
          project_id: channel.projectId,
          kind: channel.kind,
          recipient: channel.recipient,
          address: cipher.seal(Redacted.value(address), channel.id),
          created_at: DateTime.formatIso(channel.createdAt)
        })
      }`)
    ),
    list: traced("ApprovalChannels.list")((projectId) =>
      orDieInfra(
        sql<ChannelRow>`
          SELECT id, project_id, kind, recipient, created_at
          FROM approval_channels WHERE project_id = ${projectId} ORDER BY created_at, id`.pipe(
          Effect.flatMap(Effect.forEach(channelFromRow))
        )
      )
    ),
    remove: traced("ApprovalChannels.remove")(function*(projectId, id) {
      const rows = yield* orDieInfra(
        sql`DELETE FROM approval_channels WHERE project_id = ${projectId} AND id = ${id} RETURNING id`
      )
      if (rows.length === 0) return yield* new ApprovalChannelNotFound({ channelId: id })
    }),
    // Only holds begun after the channel was added (a held post's last write began its hold):
    // adding a channel does not announce the backlog.
    fanOut: traced("ApprovalChannels.fanOut")((now) =>
      orDieInfra(
        sql`
          INSERT INTO approval_messages (id, project_id, post_id, post_version, channel_id, kind, recipient, status, due_at)
          SELECT gen_random_uuid(), p.project_id, p.id, p.version, c.id, c.kind, c.recipient, 'pending', ${DateTime.formatIso(now)}::timestamptz
          FROM posts p
          JOIN approval_channels c ON c.project_id = p.project_id AND c.created_at <= p.updated_at
          WHERE p.status = 'pending_approval' AND p.superseded_by IS NULL
          ON CONFLICT (post_id, channel_id, post_version) DO NOTHING
          RETURNING id`.pipe(Effect.map((rows) => rows.length))
      )
    ),
    claimDue: traced("ApprovalChannels.claimDue")(({ leaseMillis, limit, now, worker }) => {
      const at = DateTime.formatIso(now)
      return orDieInfra(
        sql<ClaimRow>`
          WITH due AS (
            SELECT m.id FROM approval_messages m
            JOIN approval_channels c ON c.id = m.channel_id
            WHERE m.status = 'pending' AND m.due_at <= ${at}
              AND (m.lease_expires_at IS NULL OR m.lease_expires_at <= ${at})
            ORDER BY m.due_at, m.id
            LIMIT ${limit}
            FOR UPDATE OF m SKIP LOCKED
          )
          UPDATE approval_messages m
          SET lease_owner = ${worker},
              lease_expires_at = ${at}::timestamptz + ${leaseMillis} * interval '1 millisecond'
          FROM due, approval_channels c
          WHERE m.id = due.id AND c.id = m.channel_id
          RETURNING m.id AS message_id, m.post_id, m.post_version, m.attempts, c.id, c.project_id, c.kind, c.recipient, c.address, c.created_at`
          .pipe(Effect.flatMap(Effect.forEach(claimed)))
      )
    }),
    complete: traced("ApprovalChannels.complete")((id, worker, outcome) => {
      const at = DateTime.formatIso(outcome.at)
      const status = outcome._tag === "Sent" ? "sent" : outcome._tag === "Skipped" ? "skipped" : outcome._tag === "GaveUp" ? "given_up" : "pending"
      return orDieInfra(sql`
        UPDATE approval_messages SET
          attempts = attempts + ${outcome._tag === "Skipped" ? 0 : 1},
          status = ${status},
          due_at = ${outcome._tag === "Retry" ? DateTime.formatIso(outcome.dueAt) : at}::timestamptz,
          last_error = ${outcome._tag === "Retry" || outcome._tag === "GaveUp" ? outcome.error : null},
          finished_at = ${outcome._tag === "Retry" ? null : at}::timestamptz,
          lease_owner = NULL, lease_expires_at = NULL
        WHERE id = ${id} AND lease_owner = ${worker} AND status = 'pending'`)
    }),
    recipientOf: traced("ApprovalChannels.recipientOf")((projectId, id) =>
      orDieInfra(
        sql<{ readonly kind: string; readonly recipient: string }>`
          SELECT kind, recipient FROM approval_messages WHERE project_id = ${projectId} AND id = ${id}`.pipe(
          Effect.flatMap((rows) =>
            rows[0] === undefined ? Effect.succeed(Option.none()) : Effect.asSome(Schema.decodeUnknown(ChannelRecipient)(rows[0]))
          )
        )
      )
    )
  })
})

/** ApprovalChannels over approval_channels and approval_messages. */
export const PostgresApprovalChannels = Layer.effect(ApprovalChannels, make)
