import { DateTime, Effect } from "effect"
import { requireScope } from "../Authorization.js"
import { dayWindow } from "../DayWindow.js"
import { checkGuardrails, outboundTexts } from "../Guardrails.js"
import type { ProjectId } from "../Ids.js"
import type { GuardrailSettings } from "../Project.js"
import type { Principal } from "../Principal.js"
import { PostStore } from "../ports/PostStore.js"
import { effectiveDailyCap, loadProject } from "./ProjectContext.js"
import { traced } from "../Tracing.js"
import { getProject } from "./admin/Projects.js"

/** This key's allowance today, counted the way the create's 429 counts it. */
export const postsToday = traced("postsToday")(function*(principal: Principal) {
  const project = yield* loadProject(principal)
  const window = dayWindow(yield* DateTime.now, project.timezone)
  const used = yield* PostStore.pipe(Effect.flatMap((store) => store.createdSince(principal.keyId, window.since)))
  const cap = effectiveDailyCap(principal, project)
  return {
    used,
    cap,
    remaining: cap === null ? null : Math.max(cap - used, 0),
    resets_at: DateTime.formatIso(window.resetAt)
  }
})

/** POST /guardrails/check: the verdict a create would get, without creating anything. */
export const checkCaption = traced("checkCaption")(function*(principal: Principal, caption: string) {
  yield* requireScope(principal, "posts:read")
  const project = yield* loadProject(principal)
  const allowance = yield* postsToday(principal)
  return yield* checkGuardrails(
    outboundTexts({ caption, signature: project.signature, platformConfigurations: {} }),
    { ...project.guardrails, daily_post_cap: allowance.cap },
    { postsToday: allowance.used }
  )
})

/**
 * The operator's dry run (the admin API, the dashboard's Settings): the verdict a caption would get
 * under the project's guardrails with `changes` applied (settings not saved yet), counting no key's
 * posts today.
 */
export const dryRunGuardrails = traced("dryRunGuardrails")(
  function*(projectId: ProjectId, caption: string, changes: Partial<GuardrailSettings> = {}) {
    const project = yield* getProject(projectId)
    return yield* checkGuardrails(
      outboundTexts({ caption, signature: project.signature, platformConfigurations: {} }),
      { ...project.guardrails, ...changes },
      { postsToday: null }
    )
  }
)
