/**
 * LinkedIn's setup for the kit's publisherContract: the route over the fake, an account connected
 * through Herald's connection flow, the fake's controls and one stored item per media kind.
 */
import { Effect } from "effect"
import { memberScopes } from "../../src/linkedin/LinkedinOAuth.js"
import { hungCallDeadlines } from "../kit/Deadlines.js"
import type { ContractSetupEffect } from "../kit/publisherContract.js"
import { makeHarness, mediaItem, pdfBytes } from "./harness.js"

export const linkedinContractSetup: ContractSetupEffect = Effect.gen(function*() {
  const harness = yield* Effect.acquireRelease(
    // A partner app (refresh tokens); r_member_social lets reconcile read the author's posts,
    // r_member_postAnalytics the metrics. The suite runs on the TestClock, so a video is AVAILABLE
    // at its first status read (no poll waits on a clock that does not move).
    Effect.promise(() =>
      makeHarness(
        { videoPartBytes: 1000, videoProcessingReads: 0, refreshTokens: true },
        { scopes: [...memberScopes, "r_member_social", "r_member_postAnalytics"] }
      )
    ),
    (opened) => Effect.promise(() => opened.stop())
  )
  const { account } = yield* Effect.promise(() => harness.connect())
  const hung = yield* Effect.promise(() => harness.routeWithin(hungCallDeadlines))
  return {
    adapters: harness.route.adapters,
    hungPublisher: hung.adapters.publisher,
    account,
    fake: harness.fake.controls(),
    media: {
      image: harness.withBytes(mediaItem("image", { altText: "a red kite" }), new Uint8Array([255, 216, 255, 224])),
      video: harness.withBytes(mediaItem("video"), Uint8Array.from({ length: 2500 }, (_, i) => i % 251)),
      document: harness.withBytes(mediaItem("document", { filename: "deck.pdf" }), pdfBytes)
    },
    // LinkedIn's one option, document_title, names a document post, and the contract's option case
    // sends text alone: Linkedin.test.ts and the app's acceptance test post it with a PDF.
    options: [],
    reload: Effect.sync(() => harness.data.accounts.get(account.id) ?? account)
  }
})
