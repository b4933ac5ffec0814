/**
 * The YouTube Data API's daily quota, kept in storage (PlatformQuotas) per Google Cloud project:
 * every call spends its units before it is made, and one that would overdraw the day is refused
 * here as rate_limited with a Retry-After until the reset at midnight Pacific time, instead of
 * failing at Google. A quotaExceeded from Google (other software spending the same project's
 * quota) marks the day spent.
 */
import { dayWindow, PlatformQuotas, youtubeQuota } from "@herald/core"
import { DateTime, Effect } from "effect"
import { PlatformRefusal } from "../kit/index.js"

export interface QuotaSettings {
  /** The Google Cloud project whose quota the calls spend (HERALD_YOUTUBE_QUOTA_PROJECT, else the OAuth client id). */
  readonly project: string
  /** Units a day (HERALD_YOUTUBE_QUOTA_DAILY_UNITS, default 10,000). */
  readonly dailyUnits: number
  /** Units a videos.insert costs (HERALD_YOUTUBE_QUOTA_UPLOAD_UNITS, default 1,600). */
  readonly uploadUnits: number
}

/** The quota day around `now`: its date in Pacific time, and the reset (its end) in UTC. */
export const quotaDay = (now: DateTime.Utc) => {
  const { resetAt, since } = dayWindow(now, youtubeQuota.timeZone)
  const day = DateTime.formatIsoZoned(DateTime.unsafeMakeZoned(since, { timeZone: youtubeQuota.timeZone })).slice(0, 10)
  return { day, resetAt }
}

const bucketOf = (settings: QuotaSettings) => `youtube:${settings.project}`

const untilReset = (now: DateTime.Utc, resetAt: DateTime.Utc) => Math.max(0, DateTime.toEpochMillis(resetAt) - DateTime.toEpochMillis(now))

/** Spends `units` for `what`, or refuses the call as rate_limited until the reset when the day cannot afford it. */
export const spend = (settings: QuotaSettings, units: number, what: string) =>
  Effect.gen(function*() {
    const now = yield* DateTime.now
    const { day, resetAt } = quotaDay(now)
    const quotas = yield* PlatformQuotas
    const spent = yield* quotas.spend(bucketOf(settings), day, units, settings.dailyUnits)
    if (spent.spent) return
    return yield* new PlatformRefusal({
      error: {
        category: "rate_limited",
        code: "youtube_quota_exhausted",
        message: `the YouTube API quota of Google Cloud project ${settings.project} for ${day} (Pacific time) cannot afford ${what} (${units} units): ${spent.used} of ${settings.dailyUnits} units are spent; Herald tries again after the reset at ${DateTime.formatIso(resetAt)}`
      },
      retryAfterMs: untilReset(now, resetAt)
    })
  })

/** Google answered quotaExceeded: the day is spent for Herald too, and the call waits for the reset. */
export const afterQuotaExceeded = (settings: QuotaSettings) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (error): error is E & PlatformRefusal => error instanceof PlatformRefusal && error.error.code === "quotaExceeded",
    (refused) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        const { day, resetAt } = quotaDay(now)
        yield* Effect.flatMap(PlatformQuotas, (quotas) => quotas.exhaust(bucketOf(settings), day, settings.dailyUnits))
        return yield* new PlatformRefusal({
          error: { ...refused.error, message: `${refused.error.message}; Herald waits for the quota reset at ${DateTime.formatIso(resetAt)}` },
          retryAfterMs: untilReset(now, resetAt)
        })
      })
  )
