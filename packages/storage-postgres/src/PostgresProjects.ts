import { SqlClient } from "@effect/sql"
import { inSpan, Project, ProjectAdmin, ProjectNotFound, ProjectStore, traced } from "@herald/core"
import { Array as Arr, Effect, Layer, type Option, Schema } from "effect"
import { ChangeNotices } from "./ChangeNotices.js"
import { orDieInfra } from "./Infra.js"
import { projectFromRow, type ProjectRow } from "./Rows.js"

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const notices = yield* ChangeNotices
  // Every request reads its project; settings change rarely (each write raises a notice).
  const projects = notices.cache<Option.Option<Project>>("project", 10_000)
  const select = sql`
    SELECT p.id, p.name, p.timezone, p.approval, p.signature, p.plan, g.settings AS guardrails
    FROM projects p JOIN guardrail_settings g ON g.project_id = p.id`

  const saveGuardrails = (project: Project) => {
    const settings = JSON.stringify(Schema.encodeSync(Project)(project).guardrails)
    return sql`
      INSERT INTO guardrail_settings (project_id, settings) VALUES (${project.id}, ${settings})
      ON CONFLICT (project_id) DO UPDATE SET settings = EXCLUDED.settings`
  }

  const store = ProjectStore.of({
    get: (id) =>
      projects.through(
        id,
        "",
        () =>
          orDieInfra(
          sql<ProjectRow>`${select} WHERE p.id = ${id}`.pipe(
            Effect.flatMap(Effect.forEach(projectFromRow)),
            Effect.map(Arr.head)
          )
        ).pipe(inSpan("ProjectStore.get"))
      )
  })

  const admin = ProjectAdmin.of({
    create: traced("ProjectAdmin.create")((project) =>
      orDieInfra(sql.withTransaction(Effect.zipRight(
        sql`INSERT INTO projects ${
          sql.insert({
            id: project.id,
            name: project.name,
            timezone: project.timezone,
            approval: project.approval,
            signature: project.signature,
            plan: project.plan
          })
        }`,
        saveGuardrails(project)
      ))).pipe(Effect.tap(() => notices.changed("project", project.id)))
    ),
    update: traced("ProjectAdmin.update")(function*(project) {
      const updated = yield* orDieInfra(sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql`
          UPDATE projects SET name = ${project.name}, timezone = ${project.timezone}, approval = ${project.approval},
            signature = ${project.signature}, plan = ${project.plan}
          WHERE id = ${project.id} RETURNING id`
        if (rows.length > 0) yield* saveGuardrails(project)
        return rows.length > 0
      })))
      if (!updated) return yield* new ProjectNotFound({ projectId: project.id })
      notices.changed("project", project.id)
    }),
    list: orDieInfra(
      sql<ProjectRow>`${select} ORDER BY p.created_at, p.id`.pipe(Effect.flatMap(Effect.forEach(projectFromRow)))
    ).pipe(inSpan("ProjectAdmin.list"))
  })

  return Layer.succeed(ProjectStore, store).pipe(Layer.merge(Layer.succeed(ProjectAdmin, admin)))
})

/** ProjectStore and ProjectAdmin over the projects and guardrail_settings tables. */
export const PostgresProjects = Layer.unwrapEffect(make)
