/**
 * YouTube's setup for the kit's publisherContract: the route over the fake, an account connected
 * through Herald's connection flow, a stored video (every YouTube post carries one), and each
 * YouTube option, checked in the video resource the fake received.
 */
import { Effect } from "effect"
import { hungAfterAnsweredDeadlines } from "../kit/Deadlines.js"
import type { ContractSetupEffect, OptionCase } from "../kit/publisherContract.js"
import { makeHarness, makeVideo, videoItem } from "./harness.js"
import type { VideoMetadata, YoutubeFake } from "./YoutubeFake.js"

const sent = (fake: YoutubeFake, videoId: string): VideoMetadata => {
  const video = fake.liveVideos().find((candidate) => candidate.id === videoId)
  if (video === undefined) throw new Error(`the fake holds no video ${videoId}`)
  return video.metadata
}

const expectSent = (fake: YoutubeFake, read: (metadata: VideoMetadata) => unknown, expected: unknown, name: string) => (videoId: string) => {
  const got = read(sent(fake, videoId))
  if (got !== expected) throw new Error(`${name}: expected ${String(expected)}, the fake got ${String(got)}`)
}

export const youtubeOptions = (fake: YoutubeFake): ReadonlyArray<OptionCase> => [
  {
    name: "has_paid_product_placement",
    configuration: { has_paid_product_placement: true },
    check: expectSent(fake, (metadata) => metadata.paidProductPlacementDetails?.hasPaidProductPlacement, true, "paidProductPlacementDetails.hasPaidProductPlacement")
  },
  {
    name: "contains_synthetic_media",
    configuration: { contains_synthetic_media: true },
    check: expectSent(fake, (metadata) => metadata.status?.containsSyntheticMedia, true, "status.containsSyntheticMedia")
  },
  { name: "privacy_status", configuration: { privacy_status: "unlisted" }, check: expectSent(fake, (metadata) => metadata.status?.privacyStatus, "unlisted", "status.privacyStatus") },
  { name: "category_id", configuration: { category_id: "28" }, check: expectSent(fake, (metadata) => metadata.snippet.categoryId, "28", "snippet.categoryId") }
]

export const youtubeContractSetup: ContractSetupEffect = Effect.gen(function*() {
  const harness = yield* Effect.acquireRelease(// A project with a large quota: the suite uploads more than the default day's six videos.
    Effect.promise(() => makeHarness({ quota: { dailyUnits: 1_000_000 }, fake: { dailyQuota: 1_000_000 } })), (opened) => Effect.promise(() => opened.stop()))
  const account = yield* Effect.promise(() => harness.connect())
  const bytes = makeVideo()
  const video = harness.withBytes(videoItem(bytes), bytes)
  // The hung publish makes answered calls first: the upload session opened and chunks sent, then
  // the last chunk that hangs.
  const hung = yield* Effect.promise(() => harness.routeWithin(hungAfterAnsweredDeadlines))
  return {
    adapters: harness.route.adapters,
    hungPublisher: hung.adapters.publisher,
    account,
    fake: harness.fake.controls(),
    media: { video },
    carrier: video,
    options: youtubeOptions(harness.fake),
    reload: Effect.sync(() => harness.data.accounts.get(account.id) ?? account)
  }
})
