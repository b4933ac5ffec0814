import { DateTime, Either, Option } from "effect"
import { quote } from "./Echo.js"
import type { Violation } from "./Errors.js"

/** How far in the past a scheduled_at may be and still count as "now" (the contract's 2 minutes). */
export const schedulingGraceMillis = 120_000

/**
 * The last instant with a four-digit year. A later one (9999-12-31T23:59:59-05:00 is in the year
 * 10000) has no ISO 8601 form the database or a reply could carry.
 */
const latestMillis = Date.UTC(9999, 11, 31, 23, 59, 59, 999)
const latestIso = new Date(latestMillis).toISOString()

const pattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))?$/i

const refuse = (message: string): Violation => ({ field: "scheduled_at", account: null, message })

interface WallClock {
  readonly year: number
  readonly month: number
  readonly day: number
  readonly hours: number
  readonly minutes: number
  readonly seconds: number
  readonly millis: number
}

/** The wall-clock reading, if every part names a real calendar date and time of day. */
const wallClock = (match: RegExpExecArray): WallClock | null => {
  const [year, month, day, hours, minutes] = match.slice(1, 6).map(Number) as [number, number, number, number, number]
  const seconds = match[6] === undefined ? 0 : Number(match[6])
  // Precision beyond the millisecond is dropped, never rounded up into the next second.
  const millis = match[7] === undefined ? 0 : Number(match[7].padEnd(3, "0").slice(0, 3))
  const probe = new Date(Date.UTC(year, month - 1, day))
  const realDate = probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day
  return realDate && hours < 24 && minutes < 60 && seconds < 60 ? { year, month, day, hours, minutes, seconds, millis } : null
}

const fromOffset = (clock: WallClock, sign: string, offsetHours: number, offsetMinutes: number): DateTime.Utc => {
  const offsetMillis = (sign === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000
  const asUtc = Date.UTC(clock.year, clock.month - 1, clock.day, clock.hours, clock.minutes, clock.seconds, clock.millis)
  return DateTime.unsafeMake(asUtc - offsetMillis)
}

/**
 * A bare date-time is read on the project's IANA zone. Around daylight-saving changes the wall
 * clock is not one-to-one, so the reading is resolved the way Temporal's "compatible" mode does:
 * a time that happens twice (clocks go back) is the earlier one, and a time that never happens
 * (clocks go forward) moves forward by the length of the gap (02:30 in a 1-hour gap is 03:30).
 */
const fromZone = (clock: WallClock, timeZone: string): Either.Either<DateTime.Utc, Violation> =>
  Option.match(DateTime.zoneMakeNamed(timeZone), {
    onNone: () => Either.left(refuse(`the project's time zone ${quote(timeZone)} is unknown; send scheduled_at with Z or an offset`)),
    onSome: (zone) =>
      Option.match(DateTime.makeZoned(clock, { timeZone: zone, adjustForTimeZone: true, disambiguation: "compatible" }), {
        onNone: () => Either.left(refuse("scheduled_at is out of range")),
        onSome: (zoned) => Either.right(DateTime.toUtc(zoned))
      })
  })

/** Seconds while whole minutes would read as the 2-minute grace itself ("2 minutes in the past"). */
const howLongAgo = (millis: number): string =>
  millis < 10 * 60_000 ? `${Math.floor(millis / 1000)} seconds` : `${Math.floor(millis / 60_000)} minutes`

/**
 * Reads scheduled_at: with Z or a UTC offset it is that instant; a bare date-time is read on the
 * project's time zone (never the machine's). More than two minutes in the past is refused.
 */
export const resolveScheduledAt = (
  input: string,
  timeZone: string,
  now: DateTime.Utc
): Either.Either<DateTime.Utc, Violation> => {
  const match = pattern.exec(input.trim())
  const clock = match === null ? null : wallClock(match)
  if (match === null || clock === null) {
    return Either.left(refuse(
      `${quote(input)} is not a date-time; send ISO 8601 such as 2026-12-01T09:30:00Z or 2026-12-01T10:30:00+01:00`
    ))
  }
  const [, , , , , , , , zone, sign, offsetHours, offsetMinutes] = match
  const resolved = zone === undefined
    ? fromZone(clock, timeZone)
    : sign === undefined
    ? Either.right(fromOffset(clock, "+", 0, 0))
    : Number(offsetHours) > 18 || Number(offsetMinutes) > 59
    ? Either.left(refuse(`${zone} is not a UTC offset`))
    : Either.right(fromOffset(clock, sign, Number(offsetHours), Number(offsetMinutes)))
  return Either.flatMap(resolved, (at) => {
    if (DateTime.toEpochMillis(at) > latestMillis) {
      return Either.left(refuse(`${quote(input)} falls after ${latestIso}, the latest time a post can be scheduled for`))
    }
    const behind = DateTime.toEpochMillis(now) - DateTime.toEpochMillis(at)
    return behind > schedulingGraceMillis
      ? Either.left(refuse(
        `${DateTime.formatIso(at)} is ${howLongAgo(behind)} in the past; a scheduled time may be at most 2 minutes behind now (omit scheduled_at to post now)`
      ))
      : Either.right(at)
  })
}
