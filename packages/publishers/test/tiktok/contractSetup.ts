/**
 * TikTok's setup for the kit's publisherContract: the route over the fake (an audited app, videos
 * by FILE_UPLOAD), an account connected through Herald's connection flow, a video every post
 * carries (TikTok publishes no text alone), one stored item per media kind, and each TikTok
 * option. Publishes complete at their first status read (the suite runs on the TestClock, on
 * which a poll's pause would never end); TiktokPublisher.test.ts covers the waits.
 */
import { Effect } from "effect"
import { hungAfterAnsweredDeadlines } from "../kit/Deadlines.js"
import type { ContractSetupEffect, OptionCase } from "../kit/publisherContract.js"
import { makeHarness, mediaItem, videoBytes } from "./harness.js"
import type { TiktokFake } from "./TiktokFake.js"

const sent = (fake: TiktokFake, postId: string) => {
  const publish = fake.find(postId)
  if (publish === undefined) throw new Error(`the fake holds no post ${postId}`)
  return publish.postInfo
}

const expectField = (fake: TiktokFake, name: string, value: unknown) => (postId: string) => {
  const got = sent(fake, postId)[name]
  if (got !== value) throw new Error(`${name}: expected ${String(value)}, the fake got ${String(got)}`)
}

export const tiktokOptions = (fake: TiktokFake): ReadonlyArray<OptionCase> => [
  { name: "privacy_status", configuration: { privacy_status: "MUTUAL_FOLLOW_FRIENDS" }, check: expectField(fake, "privacy_level", "MUTUAL_FOLLOW_FRIENDS") },
  {
    name: "is_brand_content",
    configuration: { privacy_status: "PUBLIC_TO_EVERYONE", is_brand_content: true },
    check: expectField(fake, "brand_content_toggle", true)
  },
  { name: "is_organic_brand_content", configuration: { is_organic_brand_content: true }, check: expectField(fake, "brand_organic_toggle", true) },
  { name: "is_ai_generated", configuration: { is_ai_generated: true }, check: expectField(fake, "is_aigc", true) },
  { name: "disable_comment", configuration: { disable_comment: true }, check: expectField(fake, "disable_comment", true) },
  { name: "disable_duet", configuration: { disable_duet: true }, check: expectField(fake, "disable_duet", true) },
  { name: "disable_stitch", configuration: { disable_stitch: true }, check: expectField(fake, "disable_stitch", true) }
]

export const tiktokContractSetup: ContractSetupEffect = Effect.gen(function*() {
  const harness = yield* Effect.acquireRelease(Effect.promise(() => makeHarness()), (opened) => Effect.promise(() => opened.stop()))
  const account = yield* Effect.promise(() => harness.connect())
  // The hung publish makes answered calls first: creator_info, the init and the upload, then the
  // status read that hangs.
  const hung = yield* Effect.promise(() => harness.routeWithin(hungAfterAnsweredDeadlines))
  return {
    adapters: harness.route.adapters,
    hungPublisher: hung.adapters.publisher,
    account,
    fake: harness.fake.controls(),
    carrier: harness.withBytes(mediaItem("video"), videoBytes()),
    media: {
      image: harness.withBytes(mediaItem("image"), new Uint8Array([255, 216, 255, 224])),
      video: harness.withBytes(mediaItem("video"), videoBytes(3000))
    },
    options: tiktokOptions(harness.fake),
    reload: Effect.sync(() => harness.data.accounts.get(account.id) ?? account)
  }
})
