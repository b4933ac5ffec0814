import { Effect } from "effect"

/**
 * One fiber's wait for work held in a plain structure (an array, a set) by the callers who add it:
 * `untilAny` returns at once if `any()` holds, else once `added` is called; `added` is free while
 * nobody waits. Cheaper than a queue and a Deferred per item, as each caller adds with no effect
 * of its own.
 */
export const pendingWork = (any: () => boolean) => {
  let wake: (() => void) | undefined
  const untilAny = Effect.async<void>((resume) => {
    if (any()) return resume(Effect.void)
    wake = () => {
      wake = undefined
      resume(Effect.void)
    }
    return Effect.sync(() => {
      wake = undefined
    })
  })
  return { untilAny, added: () => wake?.() }
}
