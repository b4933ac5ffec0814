import { DateTime } from "effect"

/** The project's calendar day around `now`: daily caps count from its start and reset at its end. */
export const dayWindow = (now: DateTime.Utc, timeZone: string): { readonly since: DateTime.Utc; readonly resetAt: DateTime.Utc } => {
  const local = DateTime.unsafeMakeZoned(now, { timeZone })
  const start = DateTime.startOf(local, "day")
  return { since: DateTime.toUtc(start), resetAt: DateTime.toUtc(DateTime.add(start, { days: 1 })) }
}
