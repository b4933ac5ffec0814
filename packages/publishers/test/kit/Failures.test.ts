import { Headers } from "@effect/platform"
import { describe, expect, it } from "vitest"
import { categoryOfStatus, retryAfterMs } from "../../src/kit/Failures.js"

const now = Date.parse("2030-01-01T00:00:00Z")
const headers = (entries: Record<string, string>) => Headers.fromInput(entries)

describe("retryAfterMs", () => {
  it("reads Retry-After as seconds or an HTTP date, never negative", () => {
    expect(retryAfterMs(headers({ "retry-after": "7" }), now)).toBe(7000)
    expect(retryAfterMs(headers({ "retry-after": "Tue, 01 Jan 2030 00:01:30 GMT" }), now)).toBe(90_000)
    expect(retryAfterMs(headers({ "retry-after": "Mon, 31 Dec 2029 23:00:00 GMT" }), now)).toBe(0)
  })

  it("reads reset headers as epoch seconds (X, Bluesky) or as seconds to wait (the IETF draft)", () => {
    expect(retryAfterMs(headers({ "x-rate-limit-reset": String(now / 1000 + 900) }), now)).toBe(900_000)
    expect(retryAfterMs(headers({ "ratelimit-reset": String(now / 1000 + 60) }), now)).toBe(60_000)
    expect(retryAfterMs(headers({ "ratelimit-reset": "30" }), now)).toBe(30_000)
    // Retry-After wins over a reset header.
    expect(retryAfterMs(headers({ "retry-after": "5", "x-rate-limit-reset": String(now / 1000 + 900) }), now)).toBe(5000)
  })

  it("is null when the platform says nothing readable", () => {
    expect(retryAfterMs(headers({}), now)).toBeNull()
    expect(retryAfterMs(headers({ "retry-after": "soon" }), now)).toBeNull()
  })
})

describe("categoryOfStatus", () => {
  it("maps the statuses platforms share onto the taxonomy", () => {
    expect([401, 403, 404, 410, 413, 429, 400, 422, 500, 503, 408].map(categoryOfStatus)).toEqual([
      "auth_expired",
      "permission_missing",
      "not_found",
      "not_found",
      "media_rejected",
      "rate_limited",
      "content_rejected",
      "content_rejected",
      "transient",
      "transient",
      "transient"
    ])
  })
})
