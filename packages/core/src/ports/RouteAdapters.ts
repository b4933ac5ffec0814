import { Schema } from "effect"
import type { ConnectionRoute, SocialAccount } from "../Account.js"
import { DeliveryError } from "../DeliveryError.js"
import type { Platform } from "../Platform.js"
import type { ConnectionProbe } from "./ConnectionProbes.js"
import type { MetricsSource } from "./MetricsSources.js"
import type { Publisher } from "./Publishers.js"

/**
 * What Herald does with one network through one connection route: a network's adapter package
 * provides one of these per route it serves, and the Publishers, MetricsSources and
 * ConnectionProbes registries are built from all of them.
 */
export interface RouteAdapters {
  readonly platform: Platform
  readonly route: ConnectionRoute
  readonly publisher: Publisher
  /** null: this route reports no engagement. */
  readonly metrics: MetricsSource | null
  /** null: this route has no way to check a connection. */
  readonly probe: ConnectionProbe | null
}

/**
 * The adapter `pick` takes from each (platform, route), looked up by an account. Two entries for
 * one pair are a wiring mistake, refused when the registry is built.
 */
export const byRoute = <A>(
  adapters: ReadonlyArray<RouteAdapters>,
  pick: (adapters: RouteAdapters) => A | null
): (account: SocialAccount) => A | undefined => {
  const table = new Map<Platform, Map<ConnectionRoute, A>>()
  const seen = new Set<string>()
  for (const entry of adapters) {
    const key = `${entry.platform} through the ${entry.route} route`
    if (seen.has(key)) throw new Error(`two adapters are registered for ${key}`)
    seen.add(key)
    const adapter = pick(entry)
    if (adapter === null) continue
    const routes = table.get(entry.platform) ?? new Map<ConnectionRoute, A>()
    routes.set(entry.route, adapter)
    table.set(entry.platform, routes)
  }
  return (account) => table.get(account.platform)?.get(account.route)
}

/**
 * A read from a platform (metrics, a connection check) failed. The category says whether to try
 * again later (rate_limited, transient; not sooner than retryAfterMs) or to ask a person
 * (auth_expired, permission_missing). A read has no side effect, so no answer is `transient`.
 */
export class PlatformCallFailed extends Schema.TaggedError<PlatformCallFailed>()("PlatformCallFailed", {
  error: DeliveryError,
  retryAfterMs: Schema.NullOr(Schema.Number)
}) {}
