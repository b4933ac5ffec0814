import { Context, type Effect, Schema } from "effect"
import type { Project } from "../Project.js"

export class ProjectNotFound extends Schema.TaggedError<ProjectNotFound>()("ProjectNotFound", {
  projectId: Schema.String
}) {
  override get message(): string {
    return `project ${this.projectId} not found`
  }
}

/** Managing projects (the admin API, CLI and SDK); ProjectStore is the read side the use cases need. */
export class ProjectAdmin extends Context.Tag("@herald/core/ProjectAdmin")<ProjectAdmin, {
  readonly create: (project: Project) => Effect.Effect<void>
  /** Replaces every setting of an existing project. */
  readonly update: (project: Project) => Effect.Effect<void, ProjectNotFound>
  readonly list: Effect.Effect<ReadonlyArray<Project>>
}>() {}
