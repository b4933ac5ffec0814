/**
 * Pinterest's setup for the kit's publisherContract: the route over the fake, an account
 * connected through Herald's connection flow, an image and a video, and each Pinterest option.
 * Every post carries an image (Pinterest publishes nothing without media). Videos are processed
 * at their first status read (the suite runs on the TestClock, on which a poll's pause would
 * never end); PinterestPublisher.test.ts covers the waits.
 */
import { Effect } from "effect"
import { hungCallDeadlines } from "../kit/Deadlines.js"
import type { ContractSetupEffect, OptionCase } from "../kit/publisherContract.js"
import { jpegBytes, makeHarness, mediaItem, videoBytes } from "./harness.js"
import type { PinterestFake } from "./PinterestFake.js"

const sent = (fake: PinterestFake, pinId: string) => {
  const pin = fake.livePins().find((candidate) => candidate.id === pinId)
  if (pin === undefined) throw new Error(`the fake holds no pin ${pinId}`)
  return pin
}

const expectField = (fake: PinterestFake, name: string, value: unknown) => (pinId: string) => {
  const got = sent(fake, pinId).body[name]
  if (got !== value) throw new Error(`${name}: expected ${String(value)}, the fake got ${String(got)}`)
}

export const pinterestOptions = (fake: PinterestFake): ReadonlyArray<OptionCase> => [
  { name: "title", configuration: { title: "Autumn soup" }, check: expectField(fake, "title", "Autumn soup") },
  { name: "link", configuration: { link: "https://example.com/soup" }, check: expectField(fake, "link", "https://example.com/soup") },
  { name: "alt_text", configuration: { alt_text: "A bowl of pumpkin soup" }, check: expectField(fake, "alt_text", "A bowl of pumpkin soup") },
  {
    name: "board_ids",
    configuration: { board_ids: ["549755885176"] },
    check: (pinId) => {
      if (sent(fake, pinId).boardId !== "549755885176") throw new Error(`board_ids: the pin landed on ${sent(fake, pinId).boardId}`)
    }
  },
  {
    // Pinterest's API takes no AI label: the pin goes out without one (the receipt says so; PinterestPublisher.test.ts).
    name: "is_ai_generated",
    configuration: { is_ai_generated: true },
    check: (pinId) => {
      if ("is_ai_generated" in sent(fake, pinId).body) throw new Error("is_ai_generated is not a field of Pinterest's PinCreate")
    }
  }
]

export const pinterestContractSetup: ContractSetupEffect = Effect.gen(function*() {
  const harness = yield* Effect.acquireRelease(Effect.promise(() => makeHarness()), (opened) => Effect.promise(() => opened.stop()))
  const account = yield* Effect.promise(() => harness.connect())
  const image = harness.withBytes(mediaItem("image", { altText: "a red kite" }), jpegBytes)
  const hung = yield* Effect.promise(() => harness.routeWithin(hungCallDeadlines))
  return {
    adapters: harness.route.adapters,
    hungPublisher: hung.adapters.publisher,
    account,
    fake: harness.fake.controls(),
    media: { image, video: harness.withBytes(mediaItem("video"), videoBytes) },
    carrier: image,
    options: pinterestOptions(harness.fake),
    reload: Effect.sync(() => harness.data.accounts.get(account.id) ?? account)
  }
})
