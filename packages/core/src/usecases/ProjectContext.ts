import { DateTime, Effect, Option } from "effect"
import { dayWindow } from "../DayWindow.js"
import type { ProjectId } from "../Ids.js"
import type { Principal } from "../Principal.js"
import type { DailyCapClaim } from "../ports/PostStore.js"
import { ProjectStore } from "../ports/ProjectStore.js"
import type { Project } from "../Project.js"

/** A project that must exist (keys and signed links always name one): a missing one is a defect. */
export const loadProjectById = (projectId: ProjectId) =>
  ProjectStore.pipe(
    Effect.flatMap((store) => store.get(projectId)),
    Effect.flatMap(Option.match({
      onNone: () => Effect.dieMessage(`project ${projectId} does not exist`),
      onSome: Effect.succeed
    }))
  )

/** The caller's project. */
export const loadProject = (principal: Principal) => loadProjectById(principal.projectId)

/** The key's own daily cap, or the project's default cap for keys that have none. */
export const effectiveDailyCap = (principal: Principal, project: Project): number | null =>
  principal.dailyPostCap ?? project.guardrails.daily_post_cap

export const dailyCapClaim = (principal: Principal, project: Project, now: DateTime.Utc): DailyCapClaim | null => {
  const cap = effectiveDailyCap(principal, project)
  return cap === null ? null : { keyId: principal.keyId, cap, ...dayWindow(now, project.timezone) }
}
