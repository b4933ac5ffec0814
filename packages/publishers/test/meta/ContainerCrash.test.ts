/**
 * Meta's container flow cut short mid-wait, as a crash or a dispatcher's deadline cuts it: the
 * attempt's fiber is interrupted while it polls the container's status, with nothing settled.
 * The container id must already be recorded (PublishCheckpoints) when polling starts, and the
 * next attempt must resume polling that container and never create a second. (The attempt that
 * ends on its own wait, container_processing, is in InstagramPublisher.test.ts and
 * ThreadsPublisher.test.ts.)
 */
import { describe, expect, it } from "@effect/vitest"
import type { Media, PublishRequest, RouteAdapters, SocialAccount } from "@herald/core"
import { Effect, Exit, Fiber, Option } from "effect"
import { randomUUID } from "node:crypto"
import { makeHarness as makeInstagramHarness, mp4 } from "../instagram/harness.js"
import { makeHarness as makeThreadsHarness, mediaItem } from "../threads/harness.js"
import { patientDeadlines } from "../kit/Deadlines.js"
import { driveUntil } from "../kit/Driven.js"

/** What the crash test needs of either network's harness. */
interface Harness {
  readonly route: { readonly adapters: RouteAdapters }
  readonly data: { readonly checkpoints: ReadonlyMap<string, string> }
  readonly fake: { readonly containers: ReadonlyMap<string, unknown>; readonly livePosts: () => ReadonlyArray<unknown> }
  readonly connect: () => Promise<SocialAccount>
  readonly withBytes: (media: Media, bytes: Uint8Array) => Media
  readonly stop: () => Promise<void>
}

const crashMidPoll = (
  name: string,
  open: () => Promise<Harness>,
  request: (harness: Harness, account: SocialAccount) => PublishRequest
) =>
  it.effect(`${name}: an attempt interrupted while polling left its container recorded; the next resumes on it, one container, one post`, () =>
    Effect.scoped(Effect.gen(function*() {
      const harness = yield* Effect.acquireRelease(Effect.promise(open), (opened) => Effect.promise(() => opened.stop()))
      const account = yield* Effect.promise(() => harness.connect())
      const sent = request(harness, account)
      const publisher = harness.route.adapters.publisher

      const first = yield* Effect.fork(publisher.publish(sent))
      yield* driveUntil(first, () => harness.data.checkpoints.has(sent.marker))
      // The container exists and is recorded while the attempt still waits on it (not FINISHED yet).
      expect(Option.isNone(yield* Fiber.poll(first))).toBe(true)
      expect(harness.fake.containers.size).toBe(1)
      const [container] = [...harness.fake.containers.keys()]
      expect(harness.data.checkpoints.get(sent.marker)).toContain(container)
      // The crash: the attempt stops where it is, nothing settled, nothing forgotten.
      yield* Fiber.interrupt(first)
      expect(harness.data.checkpoints.get(sent.marker)).toContain(container)
      expect(harness.fake.livePosts()).toHaveLength(0)

      const second = yield* Effect.fork(publisher.publish(sent))
      yield* driveUntil(second, () => false)
      expect(Exit.isSuccess(yield* Fiber.await(second))).toBe(true)
      expect([...harness.fake.containers.keys()]).toEqual([container])
      expect(harness.fake.livePosts()).toHaveLength(1)
      expect(harness.data.checkpoints.has(sent.marker)).toBe(false)
    })))

describe("Meta's container flow after a crash mid-poll", () => {
  crashMidPoll(
    "Instagram (a reel)",
    () => makeInstagramHarness({ processingReads: 8 }, patientDeadlines),
    (harness, account) => ({ account, text: "A reel cut short", media: [harness.withBytes(mediaItem("video"), mp4)], configuration: undefined, marker: randomUUID() })
  )
  crashMidPoll(
    "Threads (a text post)",
    () => makeThreadsHarness({ processingReads: 8 }, patientDeadlines),
    (_harness, account) => ({ account, text: "A thread cut short", media: [], configuration: undefined, marker: randomUUID() })
  )
})
