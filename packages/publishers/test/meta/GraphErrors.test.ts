import { describe, expect, it } from "vitest"
import { classifyGraph } from "../../src/meta/GraphErrors.js"

const reply = (status: number, error: Record<string, unknown>) => ({ status, body: { error: { message: "Meta says no", fbtrace_id: "AbC123", ...error } } })
const call = classifyGraph("Threads", "call")
const media = classifyGraph("Threads", "media")

describe("Meta's error envelope on the taxonomy", () => {
  it.each([
    ["an expired session (190/463)", reply(400, { code: 190, error_subcode: 463 }), "auth_expired", "190/463"],
    ["application throttling (4)", reply(400, { code: 4, is_transient: true }), "rate_limited", "4"],
    ["user throttling (17)", reply(400, { code: 17 }), "rate_limited", "17"],
    ["a permission not granted (10)", reply(403, { code: 10 }), "permission_missing", "10"],
    ["a permission in 200-299", reply(403, { code: 200 }), "permission_missing", "200"],
    ["a container not found yet (24/4279009)", reply(400, { code: 24, error_subcode: 4279009 }), "transient", "24/4279009"],
    ["is_transient", reply(500, { code: 1, is_transient: true }), "transient", "1"],
    ["an object that does not exist (100/33)", reply(400, { code: 100, error_subcode: 33 }), "not_found", "100/33"],
    ["an invalid parameter (100)", reply(400, { code: 100 }), "content_rejected", "100"]
  ])("%s", (_, given, category, code) => {
    expect(call(given)).toMatchObject({ category, code })
  })

  it("media Meta could not fetch is the media's, even under code 1", () => {
    expect(media(reply(400, { code: 1, error_subcode: 2207052 }))).toMatchObject({ category: "media_rejected", code: "1/2207052" })
  })

  it("the message is the one meant for the user when Meta gives one, with the fbtrace_id", () => {
    const error = call(reply(400, { code: 100, error_user_msg: "Text is too long" }))
    expect(error.message).toBe("Text is too long (HTTP 400; fbtrace_id AbC123)")
  })

  it("a body that is not Meta's envelope falls back on the status", () => {
    expect(call({ status: 503, body: "<html>upstream</html>" })).toMatchObject({ category: "transient", code: "HTTP_503" })
    expect(call({ status: 429, body: null })).toMatchObject({ category: "rate_limited" })
  })
})
