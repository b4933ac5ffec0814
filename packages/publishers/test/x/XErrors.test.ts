import { Headers } from "@effect/platform"
import { describe, expect, it } from "vitest"
import { classify } from "../../src/x/XWire.js"

/** docs/networks/x.md's error table, row by row, on X's own bodies. */
const reply = (status: number, body: unknown) => ({ status, body, headers: Headers.empty })

describe("X's errors on Herald's taxonomy", () => {
  it.each([
    [401, { title: "Unauthorized", type: "about:blank", status: 401, detail: "Unauthorized" }, "auth_expired", "unauthorized"],
    [403, { title: "Forbidden", type: "about:blank", status: 403, detail: "You are not allowed to create a Tweet with duplicate content." }, "content_rejected", "forbidden"],
    [403, { title: "Forbidden", type: "about:blank", status: 403, detail: "Forbidden" }, "permission_missing", "forbidden"],
    [403, { title: "Client Forbidden", type: "https://api.x.com/2/problems/client-forbidden", detail: "When authenticating requests to the X API v2 endpoints, you must use keys and tokens from a Project" }, "permission_missing", "client-forbidden"],
    [403, { title: "Forbidden", type: "about:blank", status: 403, detail: "Your Tweet text is too long." }, "content_rejected", "forbidden"],
    [400, { title: "Invalid Request", detail: "One or more parameters to your request was invalid.", type: "https://api.x.com/2/problems/invalid-request", errors: [{ parameters: { "media.media_ids": ["1"] }, message: "Your media IDs are invalid." }] }, "media_rejected", "invalid-request"],
    [400, { title: "Invalid Request", detail: "One or more parameters to your request was invalid.", type: "https://api.x.com/2/problems/invalid-request", errors: [{ message: "$.poll.options: must have at least 2 items" }] }, "content_rejected", "invalid-request"],
    [404, { title: "Not Found Error", type: "https://api.x.com/2/problems/resource-not-found", detail: "Could not find tweet with id: [1]." }, "not_found", "resource-not-found"],
    [429, { errors: [{ code: 88, message: "Rate limit exceeded" }] }, "rate_limited", "x_88"],
    [429, { title: "UsageCapExceeded", type: "https://api.x.com/2/problems/usage-capped", detail: "Usage cap exceeded: Monthly product cap" }, "rate_limited", "usage-capped"],
    [503, "Service Unavailable", "transient", "http_503"]
  ] as const)("HTTP %i %j is %s (%s)", (status, body, category, code) => {
    expect(classify(reply(status, body))).toMatchObject({ category, code })
  })

  it("keeps X's messages, joined, as the message", () => {
    expect(classify(reply(400, {
      title: "Invalid Request",
      detail: "One or more parameters to your request was invalid.",
      type: "https://api.x.com/2/problems/invalid-request",
      errors: [{ message: "$.text: too long" }]
    })).message).toBe("One or more parameters to your request was invalid.; $.text: too long")
  })

  it("any 400 of a media call is the media's fault", () => {
    expect(classify(reply(400, { title: "Invalid Request", detail: "File size mismatch", type: "https://api.x.com/2/problems/invalid-request" }), { media: true }).category).toBe("media_rejected")
  })
})
