import { describe, expect, it } from "@effect/vitest"
import { createPost, Media, MediaId } from "@herald/core"
import { DateTime, Effect } from "effect"
import { makeWorld } from "./World.js"

/** board_ids at create: judged against the account's boards as last read, without calling Pinterest. */
describe("pinterest board_ids at create", () => {
  const world = () => {
    const made = makeWorld({ approval: "autopilot", platforms: ["pinterest"] })
    const photo = new Media({
      id: MediaId.make("40000000-0000-4000-8000-000000000001"),
      projectId: made.projectId,
      kind: "image",
      mime: "image/jpeg",
      bytes: 10,
      filename: null,
      width: 100,
      height: 150,
      durationSeconds: null,
      codec: "mjpeg",
      altText: null,
      peopleTags: [],
      thumbnailTimestampMs: null,
      storageKey: "photo",
      createdAt: DateTime.unsafeMake("2026-11-24T08:00:00Z")
    })
    made.data.media.set(photo.id, photo)
    const create = (boardIds: ReadonlyArray<string>) =>
      Effect.provide(
        createPost(made.human, {
          caption: "Soup",
          social_accounts: ["pinterest:acme_pinterest"],
          media_ids: [photo.id],
          platform_configurations: { pinterest: { board_ids: boardIds } }
        }),
        made.layer
      )
    return { ...made, create }
  }

  it.effect("refuses a board that is not the account's and one that cannot take a pin, naming the board and the account", () =>
    Effect.gen(function*() {
      const { accounts, create, data } = world()
      data.boards.set(accounts[0]!.id, [
        { id: "1", name: "Recipes", eligible: true, reason: null },
        { id: "2", name: "Ads only", eligible: false, reason: "an ads-only board holds ad pins only" }
      ])
      const refused = yield* Effect.flip(create(["1", "2", "3"]))
      expect(refused).toMatchObject({
        _tag: "ValidationFailed",
        violations: [
          {
            field: "platform_configurations.pinterest.board_ids[1]",
            account: "pinterest:acme_pinterest",
            message: "board 2 (Ads only) of pinterest:acme_pinterest cannot take a pin: an ads-only board holds ad pins only"
          },
          {
            field: "platform_configurations.pinterest.board_ids[2]",
            account: "pinterest:acme_pinterest",
            message: "board 3 is not a board of pinterest:acme_pinterest (@acme_pinterest)"
          }
        ]
      })
      expect(data.posts.size).toBe(0)
      const created = yield* create(["1"])
      expect(created.record.deliveries).toHaveLength(1)
    }))

  it.effect("with no boards read yet there is nothing to check against: the post is written and Pinterest judges the board", () =>
    Effect.gen(function*() {
      const { create } = world()
      const created = yield* create(["3"])
      expect(created.record.post.platformConfigurations).toMatchObject({ pinterest: { board_ids: ["3"] } })
    }))
})
