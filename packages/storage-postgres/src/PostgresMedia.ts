import { SqlClient } from "@effect/sql"
import { MediaAdmin, MediaLibrary, traced } from "@herald/core"
import { Effect, Layer } from "effect"
import { orDieInfra } from "./Infra.js"
import { mediaFromRow, type MediaRow, mediaToRow } from "./Rows.js"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const library = MediaLibrary.of({
    getMany: traced("MediaLibrary.getMany")((projectId, ids) =>
      ids.length === 0 ? Effect.succeed([]) : orDieInfra(
        sql<MediaRow>`SELECT * FROM media WHERE project_id = ${projectId} AND id IN ${sql.in(ids)}`.pipe(
          Effect.flatMap(Effect.forEach(mediaFromRow))
        )
      )
    )
  })
  const admin = MediaAdmin.of({
    save: traced("MediaAdmin.save")((media) => orDieInfra(sql`INSERT INTO media ${sql.insert(mediaToRow(media))}`)),
    remove: traced("MediaAdmin.remove")((projectId, id) =>
      orDieInfra(sql`DELETE FROM media WHERE project_id = ${projectId} AND id = ${id} RETURNING id`).pipe(
        Effect.map((rows) => rows.length > 0)
      )
    )
  })
  return Layer.succeed(MediaLibrary, library).pipe(Layer.merge(Layer.succeed(MediaAdmin, admin)))
})

/** MediaLibrary and MediaAdmin over the media table. */
export const PostgresMedia = Layer.unwrapEffect(make)
