import { describe, expect, it } from "@effect/vitest"
import { PinterestBoards, type PublishRequest, type SocialAccount } from "@herald/core"
import { Cause, Effect, Exit, Option } from "effect"
import { randomUUID } from "node:crypto"
import { jpegBytes, makeHarness, mediaItem, videoBytes } from "./harness.js"
import { pinterestScopes } from "../../src/pinterest/PinterestOAuth.js"
import { pinterestOpenApi } from "./PinterestOpenApi.js"
import { hungAfterAnsweredDeadlines, patientDeadlines } from "../kit/Deadlines.js"
import { driven } from "../kit/Driven.js"

type Harness = Awaited<ReturnType<typeof makeHarness>>

const withHarness = <A, E>(
  options: Parameters<typeof makeHarness>[0],
  body: (harness: Harness, account: SocialAccount) => Effect.Effect<A, E>,
  deadlines = patientDeadlines
) =>
  Effect.scoped(Effect.gen(function*() {
    const harness = yield* Effect.acquireRelease(Effect.promise(() => makeHarness(options, deadlines)), (opened) => Effect.promise(() => opened.stop()))
    const account = yield* Effect.promise(() => harness.connect())
    return yield* body(harness, account)
  }))

const image = (harness: Harness, options: Parameters<typeof mediaItem>[1] = {}) => harness.withBytes(mediaItem("image", options), jpegBytes)

const request = (account: SocialAccount, text: string, media: PublishRequest["media"], configuration: Record<string, unknown> = {}): PublishRequest => ({
  account,
  text,
  media,
  configuration,
  marker: randomUUID()
})

const failureOf = <A, E>(exit: Exit.Exit<A, E>) => Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined

const [recipes, travel, drafts, adsOnly] = ["549755885175", "549755885176", "549755885177", "549755885178"]

describe("Pinterest's boards", () => {
  it.effect("a probe reads the boards and keeps them, judged: a secret board needs pins:write_secret, a protected one takes ad pins only", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        expect(yield* Effect.promise(() => harness.runtime.runPromise(Effect.flatMap(PinterestBoards, (boards) => boards.get(account.id))))).toEqual(Option.none())
        const health = yield* harness.route.adapters.probe!.check(account)
        expect(health).toMatchObject({ _tag: "Alive", needed: ["user_accounts:read", "boards:read", "pins:read", "pins:write"] })
        expect(harness.data.boards.get(account.id)).toEqual([
          { id: recipes, name: "Recipes", eligible: true, reason: null },
          { id: travel, name: "Travel", eligible: true, reason: null },
          { id: drafts, name: "Drafts", eligible: true, reason: null },
          { id: adsOnly, name: "Ads only", eligible: false, reason: "an ads-only board holds ad pins only" }
        ])
        harness.fake.revokeScope("pins:write_secret")
        harness.fake.expireToken()
        yield* harness.route.adapters.probe!.check(account)
        expect(harness.data.boards.get(account.id)?.find((board) => board.id === drafts)).toEqual({
          id: drafts,
          name: "Drafts",
          eligible: false,
          reason: "a secret board, and the connection was not granted pins:write_secret"
        })
      })))

  it.effect("every page of boards is read; a failed lookup keeps the list read before", () =>
    withHarness({ boardPage: 1 }, (harness, account) =>
      Effect.gen(function*() {
        yield* harness.route.adapters.probe!.check(account)
        expect(harness.data.boards.get(account.id)).toHaveLength(4)
        expect(harness.fake.calls.filter((call) => call.startsWith("GET /v5/boards?"))).toHaveLength(4)
        harness.fake.boards = harness.fake.boards.slice(0, 1)
        harness.fake.boardsFault = { status: 503 }
        expect((yield* harness.route.adapters.probe!.check(account))._tag).toBe("Alive")
        expect(harness.data.boards.get(account.id)).toHaveLength(4)
      })))
})

describe("Pinterest pins", () => {
  it.effect("each board gets its own pin: the first is the receipt's, the others follow-ups listed in an info note", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const sent = request(account, "Pumpkin soup", [image(harness)], { board_ids: [travel, recipes], title: "Soup", link: "https://example.com/soup" })
        const published = yield* harness.route.adapters.publisher.publish(sent)
        const pins = harness.fake.livePins()
        expect(pins.map((pin) => pin.boardId)).toEqual([travel, recipes])
        expect(published).toEqual({
          platformPostId: pins[0]!.id,
          url: `https://www.pinterest.com/pin/${pins[0]!.id}/`,
          followUpPostIds: [pins[1]!.id],
          note: { kind: "info", text: `also pinned to another board (Recipes: https://www.pinterest.com/pin/${pins[1]!.id}/)` }
        })
        expect(pins[1]!.body).toMatchObject({ board_id: recipes, title: "Soup", description: "Pumpkin soup", link: "https://example.com/soup" })
        yield* harness.route.adapters.publisher.takedown!(account, published.platformPostId, published.followUpPostIds)
        expect(harness.fake.livePins()).toEqual([])
        const again = yield* Effect.flip(harness.route.adapters.publisher.takedown!(account, published.platformPostId, published.followUpPostIds))
        expect(again._tag).toBe("AlreadyGone")
      })))

  it.effect("no board_ids: the pin lands on the default board, the first eligible one", () =>
    withHarness({ boards: [{ id: "1", name: "Ads", privacy: "PROTECTED" }, { id: "2", name: "Home", privacy: "PUBLIC" }] }, (harness, account) =>
      Effect.gen(function*() {
        const published = yield* harness.route.adapters.publisher.publish(request(account, "Default board", [image(harness)]))
        expect(harness.fake.livePins().map((pin) => pin.boardId)).toEqual(["2"])
        expect(published.note).toBeNull()
        expect(harness.data.boards.get(account.id)?.map((board) => board.eligible)).toEqual([false, true])
      })))

  it.effect("a retry after some pins were made makes only the missing ones: each pin is recorded as it is made", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        yield* harness.route.adapters.probe!.check(account)
        const sent = request(account, "Two boards", [image(harness)], { board_ids: [recipes, travel] })
        harness.fake.failNext({ status: 503 }, { skip: 1 })
        const failed = yield* Effect.flip(harness.route.adapters.publisher.publish(sent))
        expect(failed).toMatchObject({ _tag: "PublishFailed", transient: true, error: { category: "transient" } })
        const [first] = harness.fake.livePins()
        expect(harness.fake.livePins().map((pin) => pin.boardId)).toEqual([recipes])
        const published = yield* harness.route.adapters.publisher.publish(sent)
        expect(harness.fake.livePins().map((pin) => pin.boardId)).toEqual([recipes, travel])
        expect(published.platformPostId).toBe(first!.id)
        expect(published.followUpPostIds).toEqual([harness.fake.livePins()[1]!.id])
      })))

  it.effect("a pin whose answer never came is found by reconcile on its board, beside the recorded one: nothing is pinned twice", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const sent = request(account, "Lost answer", [image(harness)], { board_ids: [recipes, travel], title: "Lost" })
        // The first board's pin is answered before the second's hangs.
        const losing = yield* Effect.promise(() => harness.routeWithin(hungAfterAnsweredDeadlines))
        harness.fake.hangNext(1)
        expect((yield* Effect.flip(losing.adapters.publisher.publish(sent)))._tag).toBe("OutcomeUnknown")
        const pins = harness.fake.livePins()
        expect(pins.map((pin) => pin.boardId)).toEqual([recipes, travel])
        const found = yield* harness.route.adapters.publisher.reconcile!(sent)
        expect(Option.map(found, (published) => [published.platformPostId, ...published.followUpPostIds ?? []])).toEqual(Option.some(pins.map((pin) => pin.id)))
        const again = yield* harness.route.adapters.publisher.publish(sent)
        expect(again.platformPostId).toBe(pins[0]!.id)
        expect(harness.fake.livePins()).toHaveLength(2)
      })))

  it.effect("reconcile says none when a board still has no pin of the delivery, and the next attempt makes only that one", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const sent = request(account, "Half made", [image(harness)], { board_ids: [recipes, travel] })
        harness.fake.failNext({ status: 500 }, { skip: 2 })
        yield* Effect.flip(harness.route.adapters.publisher.publish(sent))
        expect(harness.fake.livePins()).toHaveLength(1)
        expect(yield* harness.route.adapters.publisher.reconcile!(sent)).toEqual(Option.none())
        yield* harness.route.adapters.publisher.publish(sent)
        expect(harness.fake.livePins().map((pin) => pin.boardId)).toEqual([recipes, travel])
      })))

  it.effect("a carousel is one pin of 2 to 5 images as multiple_image_base64; alt_text from the option, else the first image's", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const items = [image(harness, { altText: "first" }), image(harness), image(harness, { mime: "image/png" })]
        const published = yield* harness.route.adapters.publisher.publish(request(account, "Carousel", items, { board_ids: [recipes] }))
        const pin = harness.fake.livePins().find((candidate) => candidate.id === published.platformPostId)!
        expect(pin.body["alt_text"]).toBe("first")
        expect(pin.body["media_source"]).toMatchObject({
          source_type: "multiple_image_base64",
          items: [
            { content_type: "image/jpeg", data: Buffer.from(jpegBytes).toString("base64") },
            { content_type: "image/jpeg" },
            { content_type: "image/png" }
          ]
        })
        yield* harness.route.adapters.publisher.publish(request(account, "Own alt", [image(harness, { altText: "ignored" })], { alt_text: "chosen", board_ids: [recipes] }))
        expect(harness.fake.livePins().at(-1)!.body["alt_text"]).toBe("chosen")
      })))

  it.effect("an image type Pinterest takes no bytes of is media_rejected, naming the media", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const webp = image(harness, { mime: "image/webp" })
        const failure = yield* Effect.flip(harness.route.adapters.publisher.publish(request(account, "WebP", [webp], { board_ids: [recipes] })))
        expect(failure).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "media_rejected", code: "unsupported_image_type" } })
        expect(failure._tag === "PublishFailed" && failure.error.message).toContain(webp.id)
        expect(harness.fake.livePins()).toEqual([])
      })))

  it.effect("is_ai_generated: the pin goes out without a label (PinCreate has none) and the note says it was left behind", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const published = yield* harness.route.adapters.publisher.publish(request(account, "Made with AI", [image(harness)], { is_ai_generated: true, board_ids: [recipes] }))
        expect(published.note).toEqual({ kind: null, text: "is_ai_generated left behind: Pinterest's API takes no AI label (Pinterest labels AI images from their metadata)" })
      })))

  it.effect("a 429 that names spam is content_rejected, not a rate limit; a 404 board is refused", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        yield* harness.route.adapters.probe!.check(account)
        harness.fake.failNext({ status: 429, body: { code: 8, message: "Your request was blocked as spam." } })
        const spam = yield* Effect.flip(harness.route.adapters.publisher.publish(request(account, "Spam?", [image(harness)], { board_ids: [recipes] })))
        expect(spam).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "content_rejected", code: "spam" } })
        const missing = yield* Effect.flip(harness.route.adapters.publisher.publish(request(account, "Nowhere", [image(harness)], { board_ids: ["999"] })))
        expect(missing).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "not_found", code: "40", message: "Board not found. (HTTP 404)" } })
      })))
})

describe("Pinterest video pins", () => {
  it.effect("registered, uploaded to the URL Pinterest hands out, polled until succeeded; the cover from thumbnail_timestamp_ms", () =>
    withHarness({ processingReads: 3 }, (harness, account) =>
      Effect.gen(function*() {
        const video = harness.withBytes(mediaItem("video", { thumbnailTimestampMs: 4500 }), videoBytes)
        const exit = yield* driven(harness.route.adapters.publisher.publish(request(account, "A video", [video], { board_ids: [recipes, travel] })))
        expect(Exit.isSuccess(exit)).toBe(true)
        expect(harness.fake.media.size).toBe(1)
        const [media] = harness.fake.media.values()
        expect(media).toMatchObject({ status: "succeeded", bytes: videoBytes.length })
        expect(harness.fake.livePins().map((pin) => pin.body["media_source"])).toEqual([
          { source_type: "video_id", media_id: media!.id, cover_image_key_frame_time: 4 },
          { source_type: "video_id", media_id: media!.id, cover_image_key_frame_time: 4 }
        ])
        expect(harness.fake.calls.filter((call) => call.startsWith("GET /v5/media/")).length).toBeGreaterThanOrEqual(4)
      })))

  it.effect("a video Pinterest fails to process is media_rejected; one still processing is transient, and the retry resumes on the same upload", () =>
    withHarness({ processingReads: 1000 }, (harness, account) =>
      Effect.gen(function*() {
        const video = harness.withBytes(mediaItem("video"), videoBytes)
        const sent = request(account, "Slow video", [video], { board_ids: [recipes] })
        const slow = yield* driven(harness.route.adapters.publisher.publish(sent))
        expect(failureOf(slow)).toMatchObject({ _tag: "PublishFailed", transient: true, error: { category: "transient", code: "media_processing" } })
        const [media] = harness.fake.media.values()
        media!.status = "succeeded"
        const resumed = yield* driven(harness.route.adapters.publisher.publish(sent))
        expect(Exit.isSuccess(resumed)).toBe(true)
        expect(harness.fake.media.size).toBe(1)
        const broken = harness.withBytes(mediaItem("video"), new Uint8Array())
        const failed = yield* driven(harness.route.adapters.publisher.publish(request(account, "Broken", [broken], { board_ids: [recipes] })))
        expect(failureOf(failed)).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "media_rejected", code: "media_failed" } })
      })))
})

describe("Pinterest metrics", () => {
  it.effect("pin analytics: impressions, reactions, comments, saves, pin and outbound clicks; no reach or shares; a deleted pin is unreportable", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const published = yield* harness.route.adapters.publisher.publish(request(account, "Measured", [image(harness)], { board_ids: [recipes] }))
        harness.fake.analytics.set(published.platformPostId, { IMPRESSION: 240, SAVE: 20, PIN_CLICK: 37, OUTBOUND_CLICK: 5, TOTAL_COMMENTS: 3, TOTAL_REACTIONS: 12 })
        const reading = yield* harness.route.adapters.metrics!.fetch({ account, platformPostId: published.platformPostId })
        expect(reading).toMatchObject({
          _tag: "Reported",
          metrics: { views: 240, likes: 12, comments: 3, saves: 20, clicks: 42, reach: null, shares: null, videoViews: null }
        })
        const asked = new URL(`http://x${harness.fake.calls.find((call) => call.includes("/analytics"))!.split(" ")[1]}`).searchParams
        expect(asked.get("metric_types")).toBe("IMPRESSION,SAVE,PIN_CLICK,OUTBOUND_CLICK,TOTAL_COMMENTS,TOTAL_REACTIONS")
        yield* harness.route.adapters.publisher.takedown!(account, published.platformPostId, [])
        expect(yield* harness.route.adapters.metrics!.fetch({ account, platformPostId: published.platformPostId })).toMatchObject({ _tag: "Unreportable", reason: "deleted" })
      })))
})

describe("the Pinterest fake against Pinterest's OpenAPI", () => {
  const call = async (harness: Harness, token: string, method: string, path: string, body?: unknown) => {
    const reply = await fetch(`${harness.fake.url}/v5${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: reply.status, body: reply.status === 204 ? null : await reply.json() as unknown }
  }
  const conforms = (template: string, method: string, reply: { status: number; body: unknown }) =>
    expect(pinterestOpenApi.violations(pinterestOpenApi.replySchema(template, method, reply.status), reply.body)).toEqual([])

  it.effect("each reply Herald reads validates against the document for its operation and status, refusals included", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        const token = String(harness.data.credentials.get(account.id)?.access_token)
        yield* Effect.promise(async () => {
          conforms("/user_account", "get", await call(harness, token, "GET", "/user_account"))
          conforms("/boards", "get", await call(harness, token, "GET", "/boards?page_size=2"))
          const media = await call(harness, token, "POST", "/media", { media_type: "video" })
          expect(media.status).toBe(201)
          conforms("/media", "post", media)
          conforms("/media/{media_id}", "get", await call(harness, token, "GET", `/media/${(media.body as { media_id: string }).media_id}`))
          const pin = await call(harness, token, "POST", "/pins", {
            board_id: recipes,
            title: "T",
            description: "D",
            media_source: { source_type: "image_base64", content_type: "image/png", data: "iVBORw0KGgo=" }
          })
          expect(pin.status).toBe(201)
          conforms("/pins", "post", pin)
          const id = (pin.body as { id: string }).id
          conforms("/pins/{pin_id}", "get", await call(harness, token, "GET", `/pins/${id}`))
          conforms("/boards/{board_id}/pins", "get", await call(harness, token, "GET", `/boards/${recipes}/pins`))
          conforms("/pins/{pin_id}/analytics", "get", await call(harness, token, "GET", `/pins/${id}/analytics?start_date=2026-11-01&end_date=2026-11-24&metric_types=IMPRESSION`))
          expect((await call(harness, token, "DELETE", `/pins/${id}`)).status).toBe(204)
          const gone = await call(harness, token, "GET", `/pins/${id}`)
          expect(gone.status).toBe(404)
          conforms("/pins/{pin_id}", "get", gone)
          const invalid = await call(harness, token, "POST", "/pins", { board_id: "not-digits", media_source: { source_type: "image_base64", content_type: "image/gif", data: "R0lG" } })
          expect(invalid.status).toBe(400)
          conforms("/pins", "post", invalid)
          expect(await call(harness, "wrong", "GET", "/user_account")).toMatchObject({ status: 401, body: { code: 2, message: "Authentication failed." } })
        })
      })))

  it("the document's request schemas refuse what Pinterest refuses: a 6-image carousel, a title over 100, a board id that is not digits", () => {
    const schema = pinterestOpenApi.requestSchema("/pins", "post")
    const items = (count: number) => Array.from({ length: count }, () => ({ content_type: "image/jpeg", data: "AAAA" }))
    expect(pinterestOpenApi.violations(schema, { board_id: "1", media_source: { source_type: "multiple_image_base64", items: items(5) } })).toEqual([])
    expect(pinterestOpenApi.violations(schema, { board_id: "1", media_source: { source_type: "multiple_image_base64", items: items(6) } })).not.toEqual([])
    expect(pinterestOpenApi.violations(schema, { board_id: "1", title: "x".repeat(101) })).not.toEqual([])
    expect(pinterestOpenApi.violations(schema, { board_id: "board" })).not.toEqual([])
  })
})

describe("Pinterest's OAuth", () => {
  it.effect("connects by authorization code (Basic client auth), identifies from /v5/user_account, and keeps each refresh's new refresh token", () =>
    withHarness({}, (harness, account) =>
      Effect.gen(function*() {
        expect(account).toMatchObject({ platform: "pinterest", username: "ada_pins", route: "direct" })
        const before = harness.data.credentials.get(account.id)!
        // Kept space separated, as AccountTokens keeps scopes (Pinterest answers them comma separated).
        expect(before.scope).toBe(pinterestScopes.join(" "))
        harness.fake.expireToken()
        yield* harness.route.adapters.probe!.check(account)
        const after = harness.data.credentials.get(account.id)!
        expect(harness.fake.tokenCalls).toEqual(["authorization_code", "refresh_token"])
        expect(after.refresh_token).not.toBe(before.refresh_token)
        harness.fake.expireToken()
        expect((yield* harness.route.adapters.probe!.check(account))._tag).toBe("Alive")
        // A refused refresh keeps Pinterest's own words ({ code, message } at the token endpoint too).
        harness.fake.revokeGrant()
        expect(yield* harness.route.adapters.probe!.check(account)).toMatchObject({ _tag: "Refused", message: expect.stringContaining("Invalid refresh token.") })
      })))
})
