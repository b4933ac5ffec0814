import { describe, expect, it } from "@effect/vitest"
import { createPost, decidePost, decidePostByLink, deletePost, type PostId } from "@herald/core"
import { DateTime, Effect } from "effect"
import { makeWorld } from "./World.js"

describe("decidePostByLink", () => {
  it.effect("decides only the version its link was made for, even when the post is held again since", () => {
    const world = makeWorld({ approval: "copilot", platforms: ["x"] })
    return Effect.gen(function*() {
      const later = DateTime.formatIso(DateTime.add(yield* DateTime.now, { days: 1 }))
      const { record } = yield* createPost(world.agent, { caption: "Held twice", social_accounts: ["x:acme_x"], scheduled_at: later })
      const id = record.post.id as PostId
      const grant = { projectId: world.projectId, postId: id, version: record.post.version }
      // Approved, then unscheduled: held again for a person, at a later version.
      yield* decidePost(world.human, id, { decision: "approve" })
      expect((yield* deletePost(world.human, id)).status).toBe("pending_approval")
      const refused = yield* Effect.flip(decidePostByLink(grant, { decision: "approve" }))
      expect(refused).toMatchObject({ _tag: "StateConflict", code: "approval_link_outdated" })
      expect(world.data.posts.get(id)!.post.status).toBe("pending_approval")
      const current = { ...grant, version: world.data.posts.get(id)!.post.version }
      expect((yield* decidePostByLink(current, { decision: "approve" })).post.status).toBe("scheduled")
    }).pipe(Effect.provide(world.layer))
  })
})
