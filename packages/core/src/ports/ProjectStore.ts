import { Context, type Effect, type Option } from "effect"
import type { ProjectId } from "../Ids.js"
import type { Project } from "../Project.js"

export class ProjectStore extends Context.Tag("@herald/core/ProjectStore")<ProjectStore, {
  readonly get: (id: ProjectId) => Effect.Effect<Option.Option<Project>>
}>() {}
