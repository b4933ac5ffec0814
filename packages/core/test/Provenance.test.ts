import { describe, expect, it } from "@effect/vitest"
import {
  ApiKeyId,
  AttemptResult,
  beginAttempt,
  createPost,
  decidePost,
  decidePostByLink,
  type DeliveryId,
  editPost,
  finishAttempt,
  PostId,
  Principal,
  takedownDelivery,
  toPostView,
  toReceipt
} from "@herald/core"
import { Effect } from "effect"
import { makeWorld } from "./World.js"

/** Keys with names, each come through a surface, as REST, MCP and the SDK mark them. */
const named = (principal: Principal, keyName: string, surface: Principal["surface"]) =>
  new Principal({ ...principal, keyName, surface })

describe("provenance: who created, edited, decided and took down a post", () => {
  it.effect("an agent's post through MCP, edited by another agent through REST, approved by a human through the SDK, taken down by a human through REST", () =>
    Effect.gen(function*() {
      const world = makeWorld({ approval: "copilot", platforms: ["x"] })
      const writer = named(world.agent, "copy-bot", "mcp")
      const editor = named(new Principal({ ...world.agent, keyId: ApiKeyId.make("30000000-0000-4000-8000-000000000099") }), "fix-bot", "rest")
      const approver = named(world.human, "Dana (SDK)", "sdk")
      const remover = named(world.human, "Dana (REST)", "rest")
      const run = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, world.layer)

      const { record: created } = yield* run(createPost(writer, { caption: "Launch", social_accounts: ["x:acme_x"] }))
      expect(toPostView(created, null).provenance).toEqual({
        created_by: { key_id: writer.keyId, key_name: "copy-bot", kind: "agent", surface: "mcp" },
        edited_by: null,
        decided_by: null
      })

      const edited = yield* run(editPost(editor, PostId.make(created.post.id), { caption: "Launch day" }))
      const editedView = toPostView(edited, null)
      // The creator stays the first version's; the edit names its own key.
      expect(editedView.provenance.created_by).toEqual({ key_id: writer.keyId, key_name: "copy-bot", kind: "agent", surface: "mcp" })
      expect(editedView.provenance.edited_by).toEqual({
        key_id: editor.keyId,
        key_name: "fix-bot",
        kind: "agent",
        surface: "rest",
        at: editedView.created_at
      })

      const approved = yield* run(decidePost(approver, edited.post.id, { decision: "approve" }))
      expect(toReceipt(approved, "https://herald.test/approve").provenance.decided_by).toMatchObject({
        outcome: "approved",
        via: "api_key",
        key_id: approver.keyId,
        key_name: "Dana (SDK)",
        surface: "sdk"
      })
      const event = world.data.outbox.at(-1)!
      expect(event.kind).toBe("post.approved")
      expect(event.data).toMatchObject({
        post: { provenance: { created_by: { key_name: "copy-bot", surface: "mcp" }, edited_by: { key_name: "fix-bot" } } },
        decision: { via: "api_key", by_key_id: approver.keyId, by_key_name: "Dana (SDK)", surface: "sdk" }
      })

      const id = approved.deliveries[0]!.id as DeliveryId
      yield* run(beginAttempt(world.projectId, id))
      yield* run(finishAttempt(world.projectId, id, AttemptResult.Published({ platformPostId: "x-1", url: "https://x.test/1", note: null, followUpPostIds: [], reconciled: false })))
      const published = world.data.outbox.at(-1)!
      expect(published.kind).toBe("post.published")
      expect(published.data).toMatchObject({
        post: {
          provenance: {
            created_by: { key_id: writer.keyId, key_name: "copy-bot", kind: "agent", surface: "mcp" },
            decided_by: { key_name: "Dana (SDK)", via: "api_key" }
          }
        }
      })

      yield* run(takedownDelivery(remover, id))
      const receipt = toReceipt(world.data.posts.get(edited.post.id)!, "https://herald.test/approve")
      expect(receipt.data[0]).toMatchObject({
        status: "taken_down",
        taken_down_by: remover.keyId,
        taken_down_by_key: { key_id: remover.keyId, key_name: "Dana (REST)", kind: "human", surface: "rest" }
      })
    }))

  it.effect("a decision through the signed approval link names the channel and no key", () =>
    Effect.gen(function*() {
      const world = makeWorld({ approval: "copilot", platforms: ["x"] })
      const run = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, world.layer)
      const { record } = yield* run(createPost(named(world.agent, "copy-bot", "rest"), { caption: "Held", social_accounts: ["x:acme_x"] }))
      const rejected = yield* run(decidePostByLink(
        { projectId: world.projectId, postId: record.post.id, version: record.post.version },
        { decision: "reject", reason: "off brand" }
      ))
      expect(toPostView(rejected, null).provenance.decided_by).toMatchObject({
        outcome: "rejected",
        via: "approval_link",
        key_id: null,
        key_name: null,
        surface: null
      })
      expect(world.data.outbox.at(-1)!.data).toMatchObject({ decision: { via: "approval_link", by_key_id: null, by_key_name: null } })
    }))
})
