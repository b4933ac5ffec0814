import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { makeFixtures } from "./media/MediaTestServer.js"
import { json, startHerald, type TestHerald } from "./TestHerald.js"

/**
 * People tags through the reference server: the demo's simulator instagram account advertises
 * can.people_tags, so handles are confirmed by the simulated network itself (handles starting
 * with nobody_ do not exist there) before the file is stored.
 */
let herald: TestHerald
const fixtures = makeFixtures()

beforeAll(async () => {
  herald = await startHerald()
}, 120_000)
afterAll(async () => herald?.close())

const upload = (tags: ReadonlyArray<string>) => {
  const form = new FormData()
  form.append("file", new Blob([fixtures.png], { type: "image/png" }), "team.png")
  for (const tag of tags) form.append("people_tags", tag)
  return herald.call("/api/v1/media", { method: "POST", token: herald.credentials.human_key, body: form })
}

describe("people_tags on the reference server", () => {
  it("422 names the handles the network does not know, and nothing is stored", async () => {
    const reply = await upload(["ana.lima", "nobody_ghost"])
    expect(reply.status).toBe(422)
    expect(await json(reply)).toMatchObject({ code: "people_tags_unconfirmed", unknown: ["nobody_ghost"] })
  })

  it("keeps confirmed tags on the photo, which may go to instagram but not to x", async () => {
    const reply = await upload(["@Ana.Lima"])
    expect(reply.status).toBe(200)
    const { id, kind } = await json(reply)
    expect(kind).toBe("image")
    const accounts = await json(await herald.call("/api/v1/social-accounts", { token: herald.credentials.human_key }))
    const ref = (platform: string) => accounts.data.find((account: { platform: string }) => account.platform === platform).ref
    const toX = await herald.call("/api/v1/posts", {
      method: "POST",
      token: herald.credentials.human_key,
      json: { caption: "The team", social_accounts: [ref("instagram"), ref("x")], media_ids: [id], is_draft: true }
    })
    expect(toX.status).toBe(400)
    expect((await json(toX)).violations).toEqual([
      { field: "media_ids[0]", account: ref("x"), message: expect.stringContaining("only instagram prints") }
    ])
    const toInstagram = await herald.call("/api/v1/posts", {
      method: "POST",
      token: herald.credentials.human_key,
      json: { caption: "The team", social_accounts: [ref("instagram")], media_ids: [id], is_draft: true }
    })
    expect(toInstagram.status).toBe(201)
  })
})
