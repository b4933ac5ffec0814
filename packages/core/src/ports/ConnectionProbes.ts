import { Context, Data, type DateTime, type Effect, Layer, Option } from "effect"
import type { AccountReport, SocialAccount } from "../Account.js"
import { byRoute, type PlatformCallFailed, type RouteAdapters } from "./RouteAdapters.js"

/**
 * What a platform says about an account's connection. Alive: the token works; it expires at
 * expiresAt (null: no expiry, or the platform does not say) and carries the `granted` permissions,
 * where Herald's calls through this route need `needed`. Refused: the platform refused the token
 * (expired or revoked); a person must reconnect the account.
 */
export type ConnectionHealth = Data.TaggedEnum<{
  Alive: {
    readonly expiresAt: DateTime.Utc | null
    readonly granted: ReadonlyArray<string>
    readonly needed: ReadonlyArray<string>
    /** What the platform reports of the account now (kept with it); absent where it reports nothing. */
    readonly report?: AccountReport
  }
  Refused: { readonly code: string; readonly message: string }
}>
export const ConnectionHealth = Data.taggedEnum<ConnectionHealth>()

/** The permissions Herald needs that the token does not carry (empty: nothing missing). */
export const missingPermissions = (alive: Data.TaggedEnum.Value<ConnectionHealth, "Alive">): ReadonlyArray<string> =>
  alive.needed.filter((permission) => !alive.granted.includes(permission))

/** Checks connections to one network through one connection route. */
export interface ConnectionProbe {
  readonly check: (account: SocialAccount) => Effect.Effect<ConnectionHealth, PlatformCallFailed>
}

/** The connection probe of each (platform, route) that has one. */
export class ConnectionProbes extends Context.Tag("@herald/core/ConnectionProbes")<ConnectionProbes, {
  /** None: connections through the account's route cannot be checked in this build. */
  readonly forAccount: (account: SocialAccount) => Option.Option<ConnectionProbe>
}>() {
  static readonly layer = (adapters: ReadonlyArray<RouteAdapters>): Layer.Layer<ConnectionProbes> =>
    Layer.sync(ConnectionProbes, () => {
      const probeOf = byRoute(adapters, (entry) => entry.probe)
      return ConnectionProbes.of({ forAccount: (account) => Option.fromNullable(probeOf(account)) })
    })
}
