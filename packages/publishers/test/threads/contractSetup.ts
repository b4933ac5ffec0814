/**
 * Threads' setup for the kit's publisherContract: the route over the fake, an account connected
 * through Herald's connection flow, one stored item per media kind, and each Threads option.
 * Containers are FINISHED at their first status read (the suite runs on the TestClock, on which
 * a poll's pause would never end); ThreadsPublisher.test.ts covers the waits.
 */
import { Effect } from "effect"
import { hungAfterAnsweredDeadlines } from "../kit/Deadlines.js"
import type { ContractSetupEffect, OptionCase } from "../kit/publisherContract.js"
import { makeHarness, mediaItem } from "./harness.js"
import type { ThreadsFake } from "./ThreadsFake.js"

const sent = (fake: ThreadsFake, postId: string) => {
  const thread = fake.livePosts().find((candidate) => candidate.id === postId)
  if (thread === undefined) throw new Error(`the fake holds no post ${postId}`)
  return thread.container.fields
}

const expectField = (fake: ThreadsFake, name: string, value: string) => (postId: string) => {
  const got = sent(fake, postId)[name]
  if (got !== value) throw new Error(`${name}: expected ${value}, the fake got ${String(got)}`)
}

export const threadsOptions = (fake: ThreadsFake): ReadonlyArray<OptionCase> => [
  { name: "topic_tag", configuration: { topic_tag: "herald" }, check: expectField(fake, "topic_tag", "herald") },
  { name: "reply_control", configuration: { reply_control: "mentioned_only" }, check: expectField(fake, "reply_control", "mentioned_only") },
  {
    name: "poll",
    configuration: { poll_option_a: "Yes", poll_option_b: "No", poll_option_c: "Maybe", poll_option_d: "Later" },
    check: expectField(fake, "poll_attachment", JSON.stringify({ option_a: "Yes", option_b: "No", option_c: "Maybe", option_d: "Later" }))
  },
  { name: "gif_id", configuration: { gif_id: "3o7TKSjRrfIPjeiVyM" }, check: expectField(fake, "gif_attachment", JSON.stringify({ gif_id: "3o7TKSjRrfIPjeiVyM", provider: "GIPHY" })) },
  { name: "crosspost_ig_story", configuration: { crosspost_ig_story: true }, check: expectField(fake, "crossreshare_to_ig", "true") },
  { name: "link_attachment", configuration: { link_attachment: "https://example.com/launch" }, check: expectField(fake, "link_attachment", "https://example.com/launch") }
]

export const threadsContractSetup: ContractSetupEffect = Effect.gen(function*() {
  const harness = yield* Effect.acquireRelease(Effect.promise(() => makeHarness()), (opened) => Effect.promise(() => opened.stop()))
  const account = yield* Effect.promise(() => harness.connect())
  // The hung publish makes answered calls first: the publishing limit read, the container made
  // and its status read, then the threads_publish that hangs.
  const hung = yield* Effect.promise(() => harness.routeWithin(hungAfterAnsweredDeadlines))
  return {
    adapters: harness.route.adapters,
    hungPublisher: hung.adapters.publisher,
    account,
    fake: harness.fake.controls(),
    media: {
      image: harness.withBytes(mediaItem("image", { altText: "a red kite" }), new Uint8Array([255, 216, 255, 224])),
      video: harness.withBytes(mediaItem("video"), Uint8Array.from({ length: 2500 }, (_, i) => i % 251))
    },
    options: threadsOptions(harness.fake),
    reload: Effect.sync(() => harness.data.accounts.get(account.id) ?? account)
  }
})
