import { DateTime, Effect, Option } from "effect"
import type { ProjectId } from "../../Ids.js"
import { PublishingPauses } from "../../ports/PublishingPauses.js"
import { PublishingPause, publishingState, type ResumeView, toPauseView } from "../../PublishingPause.js"
import { getProject } from "./Projects.js"

/** Which publishing an emergency stop names: one project's, or the whole instance's. */
export type PauseScope = { readonly project: ProjectId } | "instance"

const projectOf = (scope: PauseScope): ProjectId | null => scope === "instance" ? null : scope.project

const known = (scope: PauseScope) => scope === "instance" ? Effect.void : Effect.asVoid(getProject(scope.project))

/**
 * The emergency stop (admin API, CLI, SDK): no delivery of the scope is handed to a platform
 * from then on, until resumePublishing. Creates are still accepted. A scope already paused keeps
 * its first pause.
 */
export const pausePublishing = Effect.fnUntraced(function*(scope: PauseScope, reason: string | null) {
  yield* known(scope)
  const pause = new PublishingPause({ projectId: projectOf(scope), pausedAt: yield* DateTime.now, reason })
  return yield* Effect.flatMap(PublishingPauses, (pauses) => pauses.pause(pause))
})

/**
 * Lifts the scope's pause: what fell due meanwhile goes out in due order. Answers the pause lifted
 * (null when it was not paused) and the pauses that still hold the scope.
 */
export const resumePublishing = Effect.fnUntraced(function*(scope: PauseScope) {
  yield* known(scope)
  const pauses = yield* PublishingPauses
  const lifted = yield* pauses.resume(projectOf(scope))
  const inForce = scope === "instance" ? yield* pauses.list : yield* pauses.holding(scope.project)
  return { lifted: Option.getOrNull(Option.map(lifted, toPauseView)), in_force: inForce.map(toPauseView) } satisfies ResumeView
})

/** Whether the project publishes now, and what holds it if not (GET /project, the admin API). */
export const projectPublishing = (projectId: ProjectId) =>
  Effect.map(Effect.flatMap(PublishingPauses, (pauses) => pauses.holding(projectId)), publishingState)
