import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { PauseView, ProjectId, ResumeView } from "@herald/core"
import { Schema } from "effect"
import { AdminNotFound } from "../HttpErrors.js"

export const PauseBody = Schema.Struct({
  reason: Schema.optionalWith(Schema.NullOr(Schema.Trim.pipe(Schema.maxLength(500))), { default: () => null }).annotations({
    description: "Why publishing stops, shown in GET /project and the admin API (never on /health)."
  })
}).annotations({ identifier: "PauseBody", parseOptions: { errors: "all", onExcessProperty: "error" } })

const projectPath = Schema.Struct({ project_id: ProjectId })

/**
 * The emergency stop (docs/emergency-stop.md): pause and resume the publishing of one project or
 * of the whole instance. Creates are still accepted while paused; nothing due is lost.
 */
export class AdminPublishingGroup extends HttpApiGroup.make("publishing")
  .add(
    HttpApiEndpoint.get("list", "/publishing")
      .addSuccess(Schema.Struct({ data: Schema.Array(PauseView) }).annotations({ identifier: "AdminPublishingPauseList" }))
      .annotate(OpenApi.Summary, "The emergency stops in force (the instance's and each project's)")
  )
  .add(
    HttpApiEndpoint.post("pauseInstance", "/publishing/pause")
      .setPayload(PauseBody)
      .addSuccess(PauseView)
      .annotate(OpenApi.Summary, "Stop all publishing on this instance (every project); posts are kept, due as they are")
  )
  .add(
    HttpApiEndpoint.post("resumeInstance", "/publishing/resume")
      .addSuccess(ResumeView)
      .annotate(OpenApi.Summary, "Lift the instance's stop; what fell due meanwhile publishes in due order (projects paused on their own stay paused)")
  )
  .add(
    HttpApiEndpoint.post("pauseProject", "/projects/:project_id/publishing/pause")
      .setPath(projectPath)
      .setPayload(PauseBody)
      .addSuccess(PauseView)
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "Stop the project's publishing; posts are kept, due as they are")
  )
  .add(
    HttpApiEndpoint.post("resumeProject", "/projects/:project_id/publishing/resume")
      .setPath(projectPath)
      .addSuccess(ResumeView)
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "Lift the project's stop; what fell due meanwhile publishes in due order")
  )
{}
