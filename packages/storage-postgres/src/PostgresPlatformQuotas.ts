import { SqlClient } from "@effect/sql"
import { PlatformQuotas, traced } from "@herald/core"
import { Effect, Layer } from "effect"
import { orDieInfra } from "./Infra.js"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const used = (bucket: string, day: string) =>
    orDieInfra(sql<{ readonly used: number }>`SELECT used FROM platform_quota_usage WHERE bucket = ${bucket} AND day = ${day}::date`).pipe(
      Effect.map((rows) => rows[0]?.used ?? 0)
    )
  return PlatformQuotas.of({
    // One statement: the row's lock makes concurrent spends of the same day take turns, and the
    // WHERE refuses a spend that would pass the limit (no row comes back then).
    spend: traced("PlatformQuotas.spend")(function*(bucket, day, units, limit) {
      if (limit !== null && units > limit) return { spent: false, used: yield* used(bucket, day) }
      const rows = yield* orDieInfra(sql<{ readonly used: number }>`
        INSERT INTO platform_quota_usage AS q (bucket, day, used) VALUES (${bucket}, ${day}::date, ${units})
        ON CONFLICT (bucket, day) DO UPDATE SET used = q.used + EXCLUDED.used
        WHERE ${limit === null} OR q.used + EXCLUDED.used <= ${limit ?? 0}
        RETURNING used`)
      const after = rows[0]
      return after === undefined ? { spent: false, used: yield* used(bucket, day) } : { spent: true, used: after.used }
    }),
    exhaust: traced("PlatformQuotas.exhaust")((bucket, day, limit) =>
      orDieInfra(sql`
        INSERT INTO platform_quota_usage AS q (bucket, day, used) VALUES (${bucket}, ${day}::date, ${limit})
        ON CONFLICT (bucket, day) DO UPDATE SET used = GREATEST(q.used, EXCLUDED.used)`)
    ),
    used: traced("PlatformQuotas.used")(used)
  })
})

export const PostgresPlatformQuotas = Layer.effect(PlatformQuotas, make)
