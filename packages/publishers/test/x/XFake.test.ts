import { createHash, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startXFake, type XFake } from "./XFake.js"
import { replySchema, requestSchema, violations } from "./XOpenApi.js"

/**
 * The fake answers as X's OpenAPI document says X answers: every reply of the fake, on every path
 * Herald calls, validates against the document's schema for that operation and status. Generic
 * problems (`type: about:blank`, which the document does not model) carry the fields X's
 * "Response codes and errors" page lists.
 */

let fake: XFake
let token: string

beforeAll(async () => {
  fake = await startXFake({ processingPolls: 1, checkAfterSecs: 0 })
  const verifier = randomBytes(32).toString("base64url")
  const code = await consentCode(verifier, "tweet.read tweet.write users.read offline.access media.write", "http://127.0.0.1:9/callback")
  const granted = await tokenCall({ grant_type: "authorization_code", code, redirect_uri: "http://127.0.0.1:9/callback", code_verifier: verifier })
  token = (await granted.json() as { access_token: string }).access_token
})
afterAll(() => fake.close())

/** Follows the consent page (the fake consents at once) and answers the code it sends back. */
const consentCode = async (verifier: string, scope: string, redirectUri: string) => {
  const consent = await fetch(
    `${fake.url}/i/oauth2/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: fake.clientId,
      redirect_uri: redirectUri,
      scope,
      state: randomBytes(8).toString("hex"),
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256"
    })}`,
    { redirect: "manual" }
  )
  return new URL(consent.headers.get("location")!).searchParams.get("code")!
}

const tokenCall = (form: Record<string, string>, auth = `Basic ${Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString("base64")}`) =>
  fetch(`${fake.url}/2/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: auth },
    body: new URLSearchParams(form)
  })

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const reply = await fetch(`${fake.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: reply.status, type: reply.headers.get("content-type") ?? "", headers: reply.headers, body: await reply.json() as Record<string, unknown> }
}

/** The reply validates against the document for (path, method, status), or is a documented generic problem. */
const conforms = (path: string, method: string, reply: Awaited<ReturnType<typeof call>>) => {
  if (reply.body.type === "about:blank") {
    expect(reply.type).toBe("application/problem+json")
    expect(reply.body).toMatchObject({ title: expect.any(String), detail: expect.any(String), status: reply.status })
    return
  }
  const contentType = reply.type.startsWith("application/problem+json") ? "application/problem+json" : "application/json"
  expect(violations(replySchema(path, method, reply.status, contentType), reply.body)).toEqual([])
}

describe("the X fake against X's OpenAPI", () => {
  it("the fixture's request schemas refuse what X refuses: unknown fields, a one-option poll", () => {
    expect(violations(requestSchema("/2/tweets", "post"), { text: "hi", marker: "x" })).not.toEqual([])
    expect(violations(requestSchema("/2/tweets", "post"), { text: "hi", poll: { options: ["a"], duration_minutes: 60 } })).not.toEqual([])
    expect(violations(requestSchema("/2/tweets", "post"), { text: "hi", reply_settings: "mentionedUsers" })).toEqual([])
  })

  it("POST /2/tweets, GET /2/tweets/{id}, GET /2/users/{id}/tweets, DELETE /2/tweets/{id} and GET /2/users/me", async () => {
    const created = await call("POST", "/2/tweets", { text: "A post & a link https://example.com/x", reply_settings: "following" })
    expect(created.status).toBe(201)
    conforms("/2/tweets", "post", created)
    const id = (created.body.data as { id: string }).id
    const read = await call("GET", `/2/tweets/${id}?post.fields=public_metrics,non_public_metrics,created_at,entities`)
    conforms("/2/tweets/{id}", "get", read)
    expect((read.body.data as { text: string }).text).toMatch(/^A post &amp; a link https:\/\/t\.co\//)
    const timeline = await call("GET", `/2/users/${fake.user.id}/tweets?max_results=100&post.fields=created_at,entities`)
    conforms("/2/users/{id}/tweets", "get", timeline)
    conforms("/2/users/me", "get", await call("GET", "/2/users/me"))
    const deleted = await call("DELETE", `/2/tweets/${id}`)
    expect(deleted.body).toEqual({ data: { deleted: true } })
    conforms("/2/tweets/{id}", "delete", deleted)
    const missing = await call("GET", `/2/tweets/${id}`)
    expect(missing.status).toBe(200)
    conforms("/2/tweets/{id}", "get", missing)
  })

  it("the media endpoints: one-shot upload, initialize, append, finalize, STATUS, metadata", async () => {
    const image = await call("POST", "/2/media/upload", { media: Buffer.from("image bytes").toString("base64"), media_category: "tweet_image" })
    conforms("/2/media/upload", "post", image)
    const init = await call("POST", "/2/media/upload/initialize", { media_type: "video/mp4", total_bytes: 4, media_category: "tweet_video" })
    conforms("/2/media/upload/initialize", "post", init)
    const id = (init.body.data as { id: string }).id
    conforms("/2/media/upload/{id}/append", "post", await call("POST", `/2/media/upload/${id}/append`, { segment_index: 0, media: Buffer.from("abcd").toString("base64") }))
    const finalized = await call("POST", `/2/media/upload/${id}/finalize`)
    expect((finalized.body.data as { processing_info: { state: string } }).processing_info.state).toBe("in_progress")
    conforms("/2/media/upload/{id}/finalize", "post", finalized)
    const status = await call("GET", `/2/media/upload?command=STATUS&media_id=${id}`)
    expect((status.body.data as { processing_info: { state: string } }).processing_info.state).toBe("succeeded")
    conforms("/2/media/upload", "get", status)
    conforms("/2/media/metadata", "post", await call("POST", "/2/media/metadata", { id: (image.body.data as { id: string }).id, metadata: { alt_text: { text: "alt" } } }))
  })

  it("refusals: invalid-request problems validate; generic 401/403 carry title, detail, status", async () => {
    const unknownField = await call("POST", "/2/tweets", { text: "hi", marker: "herald" })
    expect(unknownField.status).toBe(400)
    expect(unknownField.body.type).toBe("https://api.x.com/2/problems/invalid-request")
    conforms("/2/tweets", "post", unknownField)
    const wrongType = await call("POST", "/2/tweets", "text=hi", { "content-type": "application/x-www-form-urlencoded" })
    expect(wrongType.status).toBe(415)
    conforms("/2/tweets", "post", wrongType)
    const noToken = await call("GET", "/2/users/me", undefined, { authorization: "" })
    expect(noToken.status).toBe(401)
    conforms("/2/users/me", "get", noToken)
    await call("POST", "/2/tweets", { text: "once" })
    const duplicate = await call("POST", "/2/tweets", { text: "once" })
    expect(duplicate).toMatchObject({ status: 403, body: { detail: "You are not allowed to create a Tweet with duplicate content." } })
    conforms("/2/tweets", "post", duplicate)
    const tooLong = await call("POST", "/2/tweets", { text: "a".repeat(270) + " https://example.com" })
    expect(tooLong.status).toBe(403)
  })

  it("sends X's rate-limit headers on every API reply", async () => {
    const reply = await call("GET", "/2/users/me")
    expect(reply.headers.get("x-rate-limit-limit")).toMatch(/^\d+$/)
    expect(reply.headers.get("x-rate-limit-remaining")).toMatch(/^\d+$/)
    expect(Number(reply.headers.get("x-rate-limit-reset"))).toBeGreaterThan(Date.now() / 1000)
  })

  it("the token endpoint: PKCE checked, codes single-use, refresh tokens rotate, client auth required", async () => {
    const verifier = randomBytes(32).toString("base64url")
    const code = await consentCode(verifier, "tweet.read users.read offline.access", "http://127.0.0.1:9/cb")
    const wrongVerifier = await tokenCall({ grant_type: "authorization_code", code, redirect_uri: "http://127.0.0.1:9/cb", code_verifier: "not-it" })
    expect(wrongVerifier.status).toBe(400)
    // The code was spent by the failed attempt, as single-use codes are.
    const reused = await tokenCall({ grant_type: "authorization_code", code, redirect_uri: "http://127.0.0.1:9/cb", code_verifier: verifier })
    expect(await reused.json()).toMatchObject({ error: "invalid_request" })
    const noClient = await tokenCall({ grant_type: "refresh_token", refresh_token: "xrt-x" }, "")
    expect(noClient.status).toBe(401)
  })
})
