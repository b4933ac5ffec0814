/**
 * LinkedIn's setup for the kit's publisherContract: the route over the fake, an account connected
 * through Herald's connection flow, the fake's controls, one stored item per media kind and the
 * document_title option.
 */
import { Effect } from "effect"
import { memberScopes } from "../../src/linkedin/LinkedinOAuth.js"
import type { ContractSetupEffect } from "../kit/publisherContract.js"
import { makeHarness, mediaItem, pdfBytes } from "./harness.js"

export const linkedinContractSetup: ContractSetupEffect = Effect.gen(function*() {
  const harness = yield* Effect.acquireRelease(
    // r_member_social lets reconcile read the author's posts; r_member_postAnalytics the metrics.
    Effect.promise(() => makeHarness({ videoPartBytes: 1000 }, { scopes: [...memberScopes, "r_member_social", "r_member_postAnalytics"] })),
    (opened) => Effect.promise(() => opened.stop())
  )
  const { account } = yield* Effect.promise(() => harness.connect())
  return {
    adapters: harness.route.adapters,
    account,
    fake: harness.fake.controls(),
    media: {
      image: harness.withBytes(mediaItem("image", { altText: "a red kite" }), new Uint8Array([255, 216, 255, 224])),
      video: harness.withBytes(mediaItem("video"), Uint8Array.from({ length: 2500 }, (_, i) => i % 251)),
      document: harness.withBytes(mediaItem("document", { filename: "deck.pdf" }), pdfBytes)
    },
    options: [{
      name: "document_title",
      configuration: { document_title: "The deck" },
      check: (postId) => {
        const post = harness.fake.livePosts().find((live) => live.id === postId)
        const title = (post?.content?.["media"] as { readonly title?: unknown } | undefined)?.title
        if (title !== "The deck") throw new Error(`post ${postId} carries the title ${JSON.stringify(title)}, not "The deck"`)
      }
    }],
    reload: Effect.sync(() => harness.data.accounts.get(account.id) ?? account)
  }
})
