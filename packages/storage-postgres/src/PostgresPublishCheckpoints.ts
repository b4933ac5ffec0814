import { SqlClient } from "@effect/sql"
import { PublishCheckpoints, traced } from "@herald/core"
import { Effect, Layer, Option } from "effect"
import { CredentialsCipher } from "./CredentialsCipher.js"
import { orDieInfra } from "./Infra.js"

/**
 * Values are sealed with the credentials key, bound to their delivery: some checkpoints are bearer
 * capabilities (a YouTube upload session URI, a TikTok upload URL), and the store cannot tell
 * which, so it treats every one as a secret.
 */
const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cipher = yield* CredentialsCipher
  return PublishCheckpoints.of({
    get: traced("PublishCheckpoints.get")((deliveryId) =>
      orDieInfra(sql<{ readonly value: string }>`SELECT value FROM publish_checkpoints WHERE delivery_id = ${deliveryId}`).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]?.value), (sealed) => cipher.open(sealed, deliveryId)))
      )
    ),
    put: traced("PublishCheckpoints.put")((deliveryId, value) =>
      Effect.suspend(() => {
        const sealed = cipher.seal(value, deliveryId)
        return orDieInfra(sql`
          INSERT INTO publish_checkpoints (delivery_id, value) VALUES (${deliveryId}, ${sealed})
          ON CONFLICT (delivery_id) DO UPDATE SET value = EXCLUDED.value, recorded_at = now()`)
      })
    ),
    clear: traced("PublishCheckpoints.clear")((deliveryId) =>
      orDieInfra(sql`DELETE FROM publish_checkpoints WHERE delivery_id = ${deliveryId}`)
    )
  })
})

export const PostgresPublishCheckpoints = Layer.effect(PublishCheckpoints, make)
