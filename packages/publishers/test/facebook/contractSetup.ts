/** Facebook's setup for the kit's publisherContract: the route over the fake, a Page connected through Herald's connection flow, a stored photo and video, and the link option. */
import { Effect } from "effect"
import { hungCallDeadlines } from "../kit/Deadlines.js"
import type { ContractSetupEffect, OptionCase } from "../kit/publisherContract.js"
import type { FacebookFake } from "./FacebookFake.js"
import { makeHarness, mediaItem } from "./harness.js"

/** Each Facebook option the contract suite sends, and how the fake shows it arrived. */
export const facebookOptions = (fake: FacebookFake): ReadonlyArray<OptionCase> => [{
  name: "link",
  configuration: { link: "https://example.com/launch" },
  check: (postId: string) => {
    const post = fake.livePosts().find((candidate) => candidate.id === postId)
    if (post?.link !== "https://example.com/launch") throw new Error(`link: the fake got ${String(post?.link)}`)
  }
}]

export const facebookContractSetup: ContractSetupEffect = Effect.gen(function*() {
  const harness = yield* Effect.acquireRelease(Effect.promise(() => makeHarness()), (opened) => Effect.promise(() => opened.stop()))
  const [account] = yield* Effect.promise(() => harness.connect())
  if (account === undefined) return yield* Effect.dieMessage("the connection made no Facebook account")
  const hung = yield* Effect.promise(() => harness.routeWithin(hungCallDeadlines))
  return {
    adapters: harness.route.adapters,
    hungPublisher: hung.adapters.publisher,
    account,
    fake: harness.fake.controls(),
    media: {
      image: harness.withBytes(mediaItem("image", { altText: "a red kite" }), new Uint8Array([255, 216, 255, 224])),
      video: harness.withBytes(mediaItem("video"), Uint8Array.from({ length: 2500 }, (_, i) => i % 251))
    },
    options: facebookOptions(harness.fake),
    reload: Effect.sync(() => harness.data.accounts.get(account.id) ?? account)
  }
})
