import { SqlClient } from "@effect/sql"
import { PublishCheckpoints, traced } from "@herald/core"
import { Effect, Layer, Option } from "effect"
import { orDieInfra } from "./Infra.js"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return PublishCheckpoints.of({
    get: traced("PublishCheckpoints.get")((deliveryId) =>
      orDieInfra(sql<{ readonly value: string }>`SELECT value FROM publish_checkpoints WHERE delivery_id = ${deliveryId}`).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.value))
      )
    ),
    put: traced("PublishCheckpoints.put")((deliveryId, value) =>
      orDieInfra(sql`
        INSERT INTO publish_checkpoints (delivery_id, value) VALUES (${deliveryId}, ${value})
        ON CONFLICT (delivery_id) DO UPDATE SET value = EXCLUDED.value, recorded_at = now()`)
    ),
    clear: traced("PublishCheckpoints.clear")((deliveryId) =>
      orDieInfra(sql`DELETE FROM publish_checkpoints WHERE delivery_id = ${deliveryId}`)
    )
  })
})

export const PostgresPublishCheckpoints = Layer.effect(PublishCheckpoints, make)
