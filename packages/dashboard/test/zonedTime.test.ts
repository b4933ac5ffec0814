import { describe, expect, it } from "vitest"
import { zonedToUtc } from "../src/zonedTime.js"

describe("zonedToUtc (the composer's '= … UTC' beside the schedule)", () => {
  it("reads a wall-clock time on the project's zone, whatever the machine's", () => {
    expect(zonedToUtc("2026-12-01T09:30", "Europe/Paris")?.toISOString()).toBe("2026-12-01T08:30:00.000Z")
    expect(zonedToUtc("2026-07-01T09:30", "Europe/Paris")?.toISOString()).toBe("2026-07-01T07:30:00.000Z")
    expect(zonedToUtc("2026-12-01T09:30", "America/New_York")?.toISOString()).toBe("2026-12-01T14:30:00.000Z")
    expect(zonedToUtc("2026-12-01T09:30", "Asia/Kolkata")?.toISOString()).toBe("2026-12-01T04:00:00.000Z")
    expect(zonedToUtc("2026-12-01T09:30", "UTC")?.toISOString()).toBe("2026-12-01T09:30:00.000Z")
  })

  it("takes the offset in force at the time asked, across a daylight-saving change", () => {
    // Europe/Paris moves from +01:00 to +02:00 at 2026-03-29 02:00 local.
    expect(zonedToUtc("2026-03-29T01:30", "Europe/Paris")?.toISOString()).toBe("2026-03-29T00:30:00.000Z")
    expect(zonedToUtc("2026-03-29T03:30", "Europe/Paris")?.toISOString()).toBe("2026-03-29T01:30:00.000Z")
  })

  it("answers null for what is not a date-time", () => {
    expect(zonedToUtc("", "UTC")).toBeNull()
    expect(zonedToUtc("tomorrow", "UTC")).toBeNull()
  })
})
