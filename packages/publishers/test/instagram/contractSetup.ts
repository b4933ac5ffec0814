/**
 * Instagram's setup for the kit's publisherContract, per login: the route over the fake, an account
 * connected through Herald's connection flow, one stored item per media kind (an image carries
 * every other post: Instagram publishes nothing without media), and each Instagram option the
 * login carries (Facebook Login adds the branded content labels). Containers are FINISHED at their first status read (the suite runs on the
 * TestClock); InstagramPublisher.test.ts covers the waits.
 */
import { Effect } from "effect"
import { hungAfterAnsweredDeadlines } from "../kit/Deadlines.js"
import type { ContractSetupEffect, OptionCase } from "../kit/publisherContract.js"
import { jpeg, makeHarness, mediaItem, mp4 } from "./harness.js"
import type { InstagramFake } from "./InstagramFake.js"

const sent = (fake: InstagramFake, postId: string) => {
  const post = fake.livePosts().find((candidate) => candidate.id === postId)
  if (post === undefined) throw new Error(`the fake holds no post ${postId}`)
  return post.container.fields
}

export const expectField = (fake: InstagramFake, name: string, value: string) => (postId: string) => {
  const got = sent(fake, postId)[name]
  if (got !== value) throw new Error(`${name}: expected ${value}, the fake got ${String(got)}`)
}

export const instagramLoginOptions = (fake: InstagramFake): ReadonlyArray<OptionCase> => [
  { name: "is_ai_generated", configuration: { is_ai_generated: true }, check: expectField(fake, "is_ai_generated", "true") },
  { name: "collaborators", configuration: { collaborators: ["@ada.lovelace", "alan.turing"] }, check: expectField(fake, "collaborators", JSON.stringify(["ada.lovelace", "alan.turing"])) }
]

const brands = { "acme.brand": "17841400000000099" }

export const facebookLoginOptions = (fake: InstagramFake): ReadonlyArray<OptionCase> => [
  ...instagramLoginOptions(fake),
  { name: "is_paid_partnership", configuration: { is_paid_partnership: true }, check: expectField(fake, "is_paid_partnership", "true") },
  {
    name: "branded_content_sponsors",
    configuration: { branded_content_sponsors: ["@acme.brand"] },
    check: expectField(fake, "branded_content_sponsor_ids", JSON.stringify(["17841400000000099"]))
  }
]

export const instagramContractSetup = (login: "instagram" | "facebook"): ContractSetupEffect => Effect.gen(function*() {
  const harness = yield* Effect.acquireRelease(Effect.promise(() => makeHarness({ login, brands })), (opened) => Effect.promise(() => opened.stop()))
  const account = yield* Effect.promise(() => harness.connect())
  const image = harness.withBytes(mediaItem("image", { altText: "a red kite" }), jpeg)
  // The hung publish makes answered calls first: the publishing limit read, the container made
  // and its status read, then the media_publish that hangs.
  const hung = yield* Effect.promise(() => harness.routeWithin(hungAfterAnsweredDeadlines))
  return {
    adapters: harness.route.adapters,
    hungPublisher: hung.adapters.publisher,
    account,
    fake: harness.fake.controls(),
    media: { image, video: harness.withBytes(mediaItem("video"), mp4) },
    carrier: image,
    options: login === "facebook" ? facebookLoginOptions(harness.fake) : instagramLoginOptions(harness.fake),
    reload: Effect.sync(() => harness.data.accounts.get(account.id) ?? account)
  }
})
