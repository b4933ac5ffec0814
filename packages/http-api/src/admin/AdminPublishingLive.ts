import { HttpApiBuilder } from "@effect/platform"
import { pausePublishing, ProjectStore, type ProjectNotFound, PublishingPauses, resumePublishing, toPauseView } from "@herald/core"
import { Effect } from "effect"
import { AdminNotFound } from "../HttpErrors.js"
import { groupContext } from "../RequestPath.js"
import { AdminAuthentication, AdminBodyGuard, AdminUrlGuard, HeraldAdminApi } from "./AdminApi.js"

const projectNotFound = (e: ProjectNotFound) =>
  Effect.fail(new AdminNotFound({ error: `project ${e.projectId} not found`, code: "project_not_found" }))

export const AdminPublishingLive = HttpApiBuilder.group(HeraldAdminApi, "publishing", (handlers) =>
  handlers
    .handle("list", () => Effect.map(Effect.flatMap(PublishingPauses, (pauses) => pauses.list), (pauses) => ({ data: pauses.map(toPauseView) })))
    // The instance's scope names no project: nothing can be missing.
    .handle("pauseInstance", ({ payload }) => Effect.map(pausePublishing("instance", payload.reason), toPauseView).pipe(Effect.orDie))
    .handle("resumeInstance", () => resumePublishing("instance").pipe(Effect.orDie))
    .handle("pauseProject", ({ path, payload }) =>
      Effect.map(pausePublishing({ project: path.project_id }, payload.reason), toPauseView).pipe(Effect.catchTag("ProjectNotFound", projectNotFound)))
    .handle("resumeProject", ({ path }) => resumePublishing({ project: path.project_id }).pipe(Effect.catchTag("ProjectNotFound", projectNotFound)))
).pipe(groupContext(AdminAuthentication, AdminBodyGuard, AdminUrlGuard, ProjectStore, PublishingPauses))
