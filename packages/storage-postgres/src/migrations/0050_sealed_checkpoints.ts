import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { CredentialsCipher } from "../CredentialsCipher.js"

/**
 * Publish checkpoints sealed at rest like credentials: some hold bearer capabilities (a YouTube
 * resumable-upload session URI, a TikTok upload URL) that let whoever reads them upload into the
 * account. Seals the rows recorded before, bound to their delivery like every later one.
 */
export default (cipher: typeof CredentialsCipher.Service) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.flatMap(
      sql<{ readonly delivery_id: string; readonly value: string }>`SELECT delivery_id, value FROM publish_checkpoints FOR UPDATE`,
      (rows) =>
        Effect.forEach(
          rows,
          (row) => sql`UPDATE publish_checkpoints SET value = ${cipher.seal(row.value, row.delivery_id)} WHERE delivery_id = ${row.delivery_id}`,
          { discard: true }
        )
    ))
