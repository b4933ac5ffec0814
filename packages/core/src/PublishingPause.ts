import { DateTime, Schema } from "effect"
import { Timestamp } from "./Timestamp.js"
import { ProjectId } from "./Ids.js"

/**
 * The emergency stop: publishing held for one project, or for every project of the instance
 * (projectId null). Nothing is lost while it holds: due deliveries stay queued with their due time,
 * and go out in due order once it is lifted (docs/emergency-stop.md).
 */
export class PublishingPause extends Schema.Class<PublishingPause>("PublishingPause")({
  projectId: Schema.NullOr(ProjectId),
  pausedAt: Schema.DateTimeUtc,
  reason: Schema.NullOr(Schema.String)
}) {}

/** Whether a project may publish, as GET /project and the admin API show it. */
export const PublishingState = Schema.Struct({
  paused: Schema.Boolean,
  scope: Schema.NullOr(Schema.Literal("project", "instance")).annotations({
    description: "What holds publishing: this project's own pause, or the whole instance's; null when publishing runs."
  }),
  paused_at: Schema.NullOr(Timestamp),
  reason: Schema.NullOr(Schema.String)
}).annotations({ identifier: "PublishingState" })
export type PublishingState = typeof PublishingState.Type

/** An emergency stop in force as the admin API and the SDK show it. */
export const PauseView = Schema.Struct({
  scope: Schema.Literal("instance", "project"),
  project_id: Schema.NullOr(ProjectId).annotations({ description: "The paused project; null for the instance's pause." }),
  paused_at: Timestamp.annotations({ description: "When publishing stopped (ISO 8601 UTC); a second pause keeps the first one's time." }),
  reason: Schema.NullOr(Schema.String)
}).annotations({ identifier: "AdminPublishingPause" })
export type PauseView = typeof PauseView.Type

export const toPauseView = (pause: PublishingPause): PauseView => ({
  scope: pause.projectId === null ? "instance" : "project",
  project_id: pause.projectId,
  paused_at: DateTime.formatIso(pause.pausedAt),
  reason: pause.reason
})

/** What lifting a stop answers: the pause lifted, and what still holds the scope. */
export const ResumeView = Schema.Struct({
  lifted: Schema.NullOr(PauseView).annotations({ description: "The pause lifted; null when nothing of this scope was paused." }),
  in_force: Schema.Array(PauseView).annotations({
    description: "The pauses still holding this scope (for a project, the instance's; for the instance, the projects' own)."
  })
}).annotations({ identifier: "AdminPublishingResume" })
export type ResumeView = typeof ResumeView.Type

/** The pause that holds a project (the instance's before its own: it is the wider one), if any. */
export const holdingPause = (pauses: ReadonlyArray<PublishingPause>): PublishingPause | undefined =>
  pauses.find((pause) => pause.projectId === null) ?? pauses[0]

export const publishingState = (pauses: ReadonlyArray<PublishingPause>): PublishingState => {
  const pause = holdingPause(pauses)
  return pause === undefined
    ? { paused: false, scope: null, paused_at: null, reason: null }
    : {
      paused: true,
      scope: pause.projectId === null ? "instance" : "project",
      paused_at: DateTime.formatIso(pause.pausedAt),
      reason: pause.reason
    }
}

/** What a create's reply adds while its project cannot publish. */
export const pausedNote = (pause: PublishingPause): string =>
  ` Publishing is paused ${pause.projectId === null ? "on this Herald instance" : "for this project"} since ${
    DateTime.formatIso(pause.pausedAt)
  }: the post is kept and goes out when publishing resumes.`
