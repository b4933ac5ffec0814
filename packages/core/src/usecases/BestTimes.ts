import { Either, Effect } from "effect"
import { type BestTimes, bestTimesOfCells, blendedSlots, signalOf } from "../Analytics.js"
import { resolveAccountRefs } from "../Account.js"
import { requireScope } from "../Authorization.js"
import { excerpt } from "../Echo.js"
import { ValidationFailed } from "../Errors.js"
import type { Principal } from "../Principal.js"
import { AccountStore } from "../ports/AccountStore.js"
import { MetricsStore } from "../ports/MetricsStore.js"
import { traced } from "../Tracing.js"
import { type AnalyticsQuery, analyticsFilter } from "./Insights.js"

export interface BestTimesRequest extends AnalyticsQuery {
  /** One account's own best times (an id, platform:username or a username), blended with its platform's where thin. */
  readonly account: string | null
}

/** The project's account `ref` names, or a refusal naming the account parameter. */
const accountOf = (principal: Principal, ref: string) =>
  Effect.flatMap(AccountStore, (accounts) => accounts.list(principal.projectId)).pipe(
    Effect.flatMap((accounts) =>
      Either.match(resolveAccountRefs([ref], accounts), {
        onLeft: ([failure]) =>
          Effect.fail(new ValidationFailed({ violations: [{ field: "account", account: excerpt(ref), message: failure!.message }] })),
        onRight: ([account]) => Effect.succeed(account!)
      })
    )
  )

/**
 * GET /best-times: mean engagement per weekday and hour (UTC) of publishing, with how much to
 * trust it; with account, that account's, blended with its platform's across the project where
 * its own samples are few (blendedSlots).
 */
export const bestTimes = traced("bestTimes")(function*(principal: Principal, request: BestTimesRequest) {
  yield* requireScope(principal, "posts:read")
  const filter = yield* analyticsFilter(request)
  const store = yield* MetricsStore
  if (request.account === null) {
    const found = bestTimesOfCells(yield* store.bestTimes(principal.projectId, { ...filter, account: null }))
    return { signal: found.signal, since_days: request.sinceDays, slots: found.slots } satisfies BestTimes
  }
  const account = yield* accountOf(principal, request.account)
  const own = yield* store.bestTimes(principal.projectId, { ...filter, account: account.id })
  // A platform filter other than the account's leaves neither its own posts nor a prior.
  const prior = filter.platform !== null && filter.platform !== account.platform
    ? []
    : yield* store.bestTimes(principal.projectId, { ...filter, platform: account.platform, account: null })
  const slots = blendedSlots(own, prior)
  return { signal: signalOf(slots), since_days: request.sinceDays, account: account.id, slots } satisfies BestTimes
})
