import { Effect, Option } from "effect"
import { ProjectId } from "../../Ids.js"
import { type ApprovalMode, type GuardrailSettings, noGuardrails, type PlanStatus, Project } from "../../Project.js"
import { IdGenerator } from "../../ports/IdGenerator.js"
import { ProjectAdmin, ProjectNotFound } from "../../ports/ProjectAdmin.js"
import { ProjectStore } from "../../ports/ProjectStore.js"

/** A project's settings as an admin gives them; guardrail rules left out are off. */
export interface ProjectSettings {
  readonly name: string
  readonly timezone: string
  readonly approval: ApprovalMode
  readonly signature: string
  readonly guardrails?: Partial<GuardrailSettings> | undefined
  readonly plan: PlanStatus
}

/** Settings to change; what is left out (each guardrail rule included) keeps its value. */
export type ProjectChanges = { readonly [K in keyof ProjectSettings]?: ProjectSettings[K] | undefined }

export const listProjects = Effect.flatMap(ProjectAdmin, (admin) => admin.list)

/** The project, or ProjectNotFound: every admin operation on a nested resource starts here. */
export const getProject = (id: ProjectId): Effect.Effect<Project, ProjectNotFound, ProjectStore> =>
  ProjectStore.pipe(
    Effect.flatMap((store) => store.get(id)),
    Effect.flatMap(Option.match({ onNone: () => Effect.fail(new ProjectNotFound({ projectId: id })), onSome: Effect.succeed }))
  )

export const createProject = Effect.fnUntraced(function*(settings: ProjectSettings) {
  const project = new Project({
    ...settings,
    id: ProjectId.make(yield* Effect.flatMap(IdGenerator, (ids) => ids.uuid)),
    guardrails: { ...noGuardrails, ...settings.guardrails }
  })
  yield* Effect.flatMap(ProjectAdmin, (admin) => admin.create(project))
  return project
})

export const updateProject = Effect.fnUntraced(function*(id: ProjectId, changes: ProjectChanges) {
  const current = yield* getProject(id)
  const { guardrails, ...fields } = changes
  const project = new Project({ ...current, ...fields, guardrails: { ...current.guardrails, ...guardrails } })
  yield* Effect.flatMap(ProjectAdmin, (admin) => admin.update(project))
  return project
})
