/**
 * A wall-clock time in an IANA zone as a UTC instant, for showing "= … UTC" beside the schedule
 * input. The server reads the same bare date-time on the project's zone itself (scheduled_at), so
 * this is display only.
 */
const offsetMillis = (instant: number, timeZone: string): number => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" })
      .formatToParts(new Date(instant))
      .map((part) => [part.type, Number(part.value)])
  )
  return Date.UTC(parts["year"]!, parts["month"]! - 1, parts["day"]!, parts["hour"]!, parts["minute"]!, parts["second"]!) - instant
}

/** "2026-12-01T09:30" in `timeZone` → the UTC instant, or null when the input is not a date-time. */
export const zonedToUtc = (local: string, timeZone: string): Date | null => {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local)
  if (match === null) return null
  const [, year, month, day, hour, minute] = match.map(Number)
  const asUtc = Date.UTC(year!, month! - 1, day!, hour!, minute!)
  // Twice: the offset at the first guess may differ from the offset at the answer across a DST change.
  const first = asUtc - offsetMillis(asUtc, timeZone)
  return new Date(asUtc - offsetMillis(first, timeZone))
}
