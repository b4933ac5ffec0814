import { describe, expect, it } from "@effect/vitest"
import { DateTime, Either } from "effect"
import { resolveScheduledAt, schedulingGraceMillis } from "../src/ScheduledAt.js"

const at = (iso: string) => DateTime.unsafeMake(iso)
const winter = at("2026-01-01T00:00:00Z")

const resolvedIso = (input: string, zone: string, now = winter) =>
  Either.match(resolveScheduledAt(input, zone, now), {
    onLeft: (violation) => `refused: ${violation.message}`,
    onRight: DateTime.formatIso
  })

describe("resolveScheduledAt", () => {
  it.each([
    ["Z", "2026-06-02T09:30:00Z", "Asia/Tokyo", "2026-06-02T09:30:00.000Z"],
    ["lower-case z and minutes only", "2026-06-02t09:30z", "Asia/Tokyo", "2026-06-02T09:30:00.000Z"],
    ["+05:30", "2026-06-02T09:30:00+05:30", "Europe/Paris", "2026-06-02T04:00:00.000Z"],
    ["+0530 without colon", "2026-06-02T09:30:00+0530", "Europe/Paris", "2026-06-02T04:00:00.000Z"],
    ["-08:00", "2026-06-02T09:30:00-08:00", "Europe/Paris", "2026-06-02T17:30:00.000Z"],
    ["fractions beyond the millisecond are cut", "2026-06-02T09:30:00.123987654Z", "UTC", "2026-06-02T09:30:00.123Z"],
    ["bare, Paris summer (CEST, +2)", "2026-06-02T09:30:00", "Europe/Paris", "2026-06-02T07:30:00.000Z"],
    ["bare, Paris winter (CET, +1)", "2026-12-01T09:30", "Europe/Paris", "2026-12-01T08:30:00.000Z"],
    ["bare, New York summer (EDT, -4)", "2026-06-02T09:30:00", "America/New_York", "2026-06-02T13:30:00.000Z"],
    ["bare, New York winter (EST, -5)", "2026-12-01T09:30:00", "America/New_York", "2026-12-01T14:30:00.000Z"],
    // Spring forward: 02:00-03:00 does not exist; the reading moves forward by the gap.
    ["New York gap 02:30 reads as 03:30 EDT", "2026-03-08T02:30:00", "America/New_York", "2026-03-08T07:30:00.000Z"],
    ["Paris gap 02:30 reads as 03:30 CEST", "2026-03-29T02:30:00", "Europe/Paris", "2026-03-29T01:30:00.000Z"],
    // Fall back: 01:00-02:00 (New York) and 02:00-03:00 (Paris) happen twice; the earlier one is taken.
    ["New York overlap 01:30 is the first (EDT)", "2026-11-01T01:30:00", "America/New_York", "2026-11-01T05:30:00.000Z"],
    ["Paris overlap 02:30 is the first (CEST)", "2026-10-25T02:30:00", "Europe/Paris", "2026-10-25T00:30:00.000Z"]
  ])("%s", (_name, input, zone, expected) => {
    expect(resolvedIso(input, zone)).toBe(expected)
  })

  it("refuses a time more than 2 minutes in the past, naming scheduled_at", () => {
    const now = at("2026-06-02T12:00:00Z")
    const result = resolveScheduledAt("2026-06-02T11:57:59Z", "UTC", now)
    expect(Either.isLeft(result)).toBe(true)
    const violation = Either.getLeft(result)
    expect(violation._tag === "Some" && violation.value.field).toBe("scheduled_at")
    expect(violation._tag === "Some" && violation.value.account).toBe(null)
  })

  it("accepts a time within the grace, up to exactly 2 minutes behind", () => {
    const now = at("2026-06-02T12:00:00Z")
    expect(schedulingGraceMillis).toBe(120_000)
    expect(resolvedIso("2026-06-02T11:58:01Z", "UTC", now)).toBe("2026-06-02T11:58:01.000Z")
    expect(resolvedIso("2026-06-02T11:58:00Z", "UTC", now)).toBe("2026-06-02T11:58:00.000Z")
    expect(resolvedIso("2026-06-02T11:57:59.999Z", "UTC", now)).toMatch(/^refused: .* in the past/)
  })

  it("says how far behind in seconds while minutes would read as the grace itself", () => {
    const now = at("2026-06-02T12:00:00Z")
    expect(resolvedIso("2026-06-02T11:57:30Z", "UTC", now)).toBe(
      "refused: 2026-06-02T11:57:30.000Z is 150 seconds in the past; a scheduled time may be at most 2 minutes behind now (omit scheduled_at to post now)"
    )
    expect(resolvedIso("2026-06-02T11:00:00Z", "UTC", now)).toMatch(/^refused: \S+ is 60 minutes in the past;/)
  })

  it.each([
    ["an offset west of UTC", "9999-12-31T23:59:59-05:00", "UTC"],
    ["a bare time on a zone west of UTC", "9999-12-31T23:30:00", "America/New_York"]
  ])("refuses a time that falls in the year 10000 through %s, naming scheduled_at", (_name, input, zone) => {
    expect(resolvedIso(input, zone)).toBe(
      `refused: "${input}" falls after 9999-12-31T23:59:59.999Z, the latest time a post can be scheduled for`
    )
  })

  it("accepts the last instant of the year 9999", () => {
    expect(resolvedIso("9999-12-31T23:59:59.999Z", "UTC")).toBe("9999-12-31T23:59:59.999Z")
    expect(resolvedIso("10000-01-01T04:59:59+05:00", "UTC")).toMatch(/^refused: .* is not a date-time/)
  })

  it("reads a bare past time on the project's zone before judging it past", () => {
    // 13:59 in Paris is 11:59Z: one minute behind 12:00Z, inside the grace; in New York it is hours ahead.
    const now = at("2026-06-02T12:00:00Z")
    expect(resolvedIso("2026-06-02T13:59:00", "Europe/Paris", now)).toBe("2026-06-02T11:59:00.000Z")
    expect(resolvedIso("2026-06-02T13:55:00", "Europe/Paris", now)).toMatch(/^refused: /)
    expect(resolvedIso("2026-06-02T13:55:00", "America/New_York", now)).toBe("2026-06-02T17:55:00.000Z")
  })

  it.each([
    ["not a date", "tomorrow at nine"],
    ["no such day", "2026-02-30T10:00:00Z"],
    ["no such hour", "2026-06-02T24:00:00Z"],
    ["offset beyond 18 hours", "2026-06-02T10:00:00+19:00"]
  ])("refuses %s", (_name, input) => {
    expect(resolvedIso(input, "UTC")).toMatch(/^refused: /)
  })

  it("refuses a bare time when the project's zone is unknown", () => {
    expect(resolvedIso("2026-06-02T10:00:00", "Mars/Olympus_Mons")).toMatch(/^refused: .*time zone/)
  })

  it("does not read the machine's time zone", () => {
    const env = (globalThis as unknown as { process: { env: Record<string, string | undefined> } }).process.env
    const original = env.TZ
    const readings = ["Pacific/Kiritimati", "America/Los_Angeles", "UTC"].map((machineZone) => {
      env.TZ = machineZone
      return [
        resolvedIso("2026-03-08T02:30:00", "America/New_York"),
        resolvedIso("2026-06-02T09:30:00", "Europe/Paris"),
        resolvedIso("2026-06-02T09:30:00-08:00", "Europe/Paris")
      ]
    })
    if (original === undefined) delete env.TZ
    else env.TZ = original
    expect(new Set(readings.map((reading) => reading.join())).size).toBe(1)
    expect(readings[0]).toEqual(["2026-03-08T07:30:00.000Z", "2026-06-02T07:30:00.000Z", "2026-06-02T17:30:00.000Z"])
  })
})
