import { Context, type Effect } from "effect"

/**
 * Units of a platform's daily API quota spent, per bucket (YouTube: the Google Cloud project the
 * OAuth client belongs to) and per quota day (a date in the platform's own time zone), shared by
 * every process, so that a call that would overdraw the day is refused before it is made.
 */
export class PlatformQuotas extends Context.Tag("@herald/core/PlatformQuotas")<PlatformQuotas, {
  /**
   * Spends `units` of the bucket's `day` when the day's total stays within `limit` (null: always,
   * for calls that must be counted whatever is left); answers whether it was spent and the day's
   * total after.
   */
  readonly spend: (bucket: string, day: string, units: number, limit: number | null) => Effect.Effect<{ readonly spent: boolean; readonly used: number }>
  /** The platform said the day's quota is gone: the day's total becomes at least `limit`. */
  readonly exhaust: (bucket: string, day: string, limit: number) => Effect.Effect<void>
  /** Units spent on the bucket's day (0 when none). */
  readonly used: (bucket: string, day: string) => Effect.Effect<number>
}>() {}
