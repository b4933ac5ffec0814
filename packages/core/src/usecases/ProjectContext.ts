import { DateTime, Effect, Option } from "effect"
import { dayWindow } from "../DayWindow.js"
import type { Principal } from "../Principal.js"
import type { DailyCapClaim } from "../ports/PostStore.js"
import { ProjectStore } from "../ports/ProjectStore.js"
import type { Project } from "../Project.js"

/** The caller's project. A key always belongs to one, so a missing project is a defect. */
export const loadProject = (principal: Principal) =>
  ProjectStore.pipe(
    Effect.flatMap((store) => store.get(principal.projectId)),
    Effect.flatMap(Option.match({
      onNone: () => Effect.dieMessage(`project ${principal.projectId} of key ${principal.keyId} does not exist`),
      onSome: Effect.succeed
    }))
  )

/** The key's own daily cap, or the project's default cap for keys that have none. */
export const effectiveDailyCap = (principal: Principal, project: Project): number | null =>
  principal.dailyPostCap ?? project.guardrails.daily_post_cap

export const dailyCapClaim = (principal: Principal, project: Project, now: DateTime.Utc): DailyCapClaim | null => {
  const cap = effectiveDailyCap(principal, project)
  return cap === null ? null : { keyId: principal.keyId, cap, ...dayWindow(now, project.timezone) }
}
