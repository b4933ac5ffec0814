/**
 * Ayrshare's setup for the kit's publisherContract: Instagram's aggregator route over the fake,
 * an account connected with the aggregator's keys, an image and a video at public URLs, and the
 * options the route carries (first_comment, collaborators, cover_url).
 */
import { Effect } from "effect"
import type { AggregatorRoute } from "../../src/aggregator/AyrshareRoute.js"
import { hungCallDeadlines } from "../kit/Deadlines.js"
import type { ContractSetupEffect, OptionCase } from "../kit/publisherContract.js"
import type { AyrshareFake } from "./AyrshareFake.js"
import { makeHarness, mediaItem } from "./harness.js"

const sent = (fake: AyrshareFake, postId: string) => {
  const post = fake.posts.get(postId)
  if (post === undefined) throw new Error(`the fake holds no post ${postId}`)
  return post
}

const expectEqual = (what: string, got: unknown, wanted: unknown) => {
  if (JSON.stringify(got) !== JSON.stringify(wanted)) throw new Error(`${what}: expected ${JSON.stringify(wanted)}, the fake got ${JSON.stringify(got)}`)
}

const instagramOptions = (fake: AyrshareFake, postId: string) => (sent(fake, postId).body.instagramOptions ?? {}) as Record<string, unknown>

export const ayrshareOptions = (fake: AyrshareFake): ReadonlyArray<OptionCase> => [
  {
    name: "first_comment",
    configuration: { first_comment: "First! #launch" },
    check: (postId) => expectEqual("the first comment", sent(fake, postId).comments, ["First! #launch"])
  },
  {
    name: "collaborators",
    configuration: { collaborators: ["@ana.lopez", "ben_k"] },
    check: (postId) => expectEqual("instagramOptions.collaborators", instagramOptions(fake, postId).collaborators, ["ana.lopez", "ben_k"])
  },
  {
    name: "stories placement",
    configuration: { placement: "stories" },
    check: (postId) => expectEqual("instagramOptions.stories", instagramOptions(fake, postId).stories, true)
  }
]

export const ayrshareContractSetup = (route: AggregatorRoute): ContractSetupEffect =>
  Effect.gen(function*() {
    const harness = yield* Effect.acquireRelease(Effect.promise(() => makeHarness(route)), (opened) => Effect.promise(() => opened.stop()))
    const account = yield* Effect.promise(() => harness.connect())
    const hung = yield* Effect.promise(() => harness.routeWithin(hungCallDeadlines))
    return {
      adapters: harness.route.adapters,
      hungPublisher: hung.adapters.publisher,
      account,
      fake: harness.fake.controls(),
      media: { image: harness.store(mediaItem("image")), video: harness.store(mediaItem("video")) },
      carrier: harness.store(mediaItem("image")),
      options: ayrshareOptions(harness.fake),
      reload: Effect.sync(() => harness.data.accounts.get(account.id) ?? account)
    }
  })
