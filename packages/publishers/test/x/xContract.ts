import { Effect } from "effect"
import { hungCallDeadlines } from "../kit/Deadlines.js"
import type { ContractSetupEffect } from "../kit/publisherContract.js"
import { startXHarness } from "./xHarness.js"

const bytes = (size: number) => Uint8Array.from({ length: size }, (_, index) => (index * 31) % 251)

/**
 * The X route's setup for the kit's publisherContract: the route against the X fake (and again
 * under shorter deadlines, for the publish whose answer never comes), an account connected
 * through the consent flow, one image, video and GIF, and the options X's module lists (poll,
 * reply_settings, thread, first_comment), each with how the fake shows it got it.
 */
export const xContractSetup: ContractSetupEffect = Effect.gen(function*() {
  const harness = yield* Effect.acquireRelease(
    Effect.promise(() => startXHarness({ processingPolls: 1, checkAfterSecs: 0 })),
    (harness) => Effect.promise(() => harness.close())
  )
  const account = yield* Effect.promise(() => harness.connect())
  // A text post is one call, the one whose answer never comes: no answered call runs on this route.
  const hung = yield* Effect.promise(() => harness.routeWithin(hungCallDeadlines))
  const stored = (id: string) => {
    const post = harness.fake.stored().find((post) => post.id === id)
    if (post === undefined) throw new Error(`the fake holds no post ${id}`)
    return post
  }
  const repliesTo = (id: string) => harness.fake.stored().filter((post) => post.inReplyTo === id)
  const expect = (holds: boolean, what: string) => {
    if (!holds) throw new Error(what)
  }
  return {
    adapters: harness.adapters,
    hungPublisher: hung.adapters.publisher,
    account,
    fake: harness.fake,
    media: {
      image: harness.storeMedia({ kind: "image", mime: "image/png", bytes: bytes(2048), altText: "A chart" }),
      video: harness.storeMedia({ kind: "video", mime: "video/mp4", bytes: bytes(1_500_000) }),
      gif: harness.storeMedia({ kind: "image", mime: "image/gif", bytes: bytes(4096) })
    },
    options: [
      {
        name: "poll",
        configuration: { poll: { options: ["Yes", "No"], duration_minutes: 60 } },
        check: (id) => expect(JSON.stringify(stored(id).poll) === JSON.stringify({ options: ["Yes", "No"], duration_minutes: 60 }), "the poll did not reach X")
      },
      {
        name: "reply_settings",
        configuration: { reply_settings: "following" },
        check: (id) => expect(stored(id).replySettings === "following", "reply_settings did not reach X")
      },
      {
        name: "thread",
        configuration: { thread: ["Second part of the thread"] },
        check: (id) => expect(repliesTo(id).some((post) => post.text === "Second part of the thread"), "the follow-up is not a reply to the post")
      },
      {
        name: "first_comment",
        configuration: { first_comment: "The first comment" },
        check: (id) => expect(repliesTo(id).some((post) => post.text === "The first comment"), "the first comment is not a reply to the post")
      }
    ],
    reload: Effect.sync(() => harness.reload(account))
  }
})
