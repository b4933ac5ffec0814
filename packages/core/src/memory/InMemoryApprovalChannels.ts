import { DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { type ApprovalChannel, ApprovalChannelNotFound } from "../ApprovalChannel.js"
import { ApprovalMessageId } from "../Ids.js"
import { ApprovalChannels, type ClaimedApprovalMessage } from "../ports/ApprovalChannels.js"
import type { InMemoryData } from "./InMemoryStores.js"

interface StoredMessage {
  readonly message: Omit<ClaimedApprovalMessage, "attempts">
  attempts: number
  status: "pending" | "sent" | "skipped" | "given_up"
  dueAt: DateTime.Utc
  lease: { readonly worker: string; readonly until: DateTime.Utc } | null
}

/** ApprovalChannels over the in-memory posts, with the Postgres adapter's semantics (fan-out, leases, outcomes). */
export const makeInMemoryApprovalChannels = (data: InMemoryData): Layer.Layer<ApprovalChannels> => {
  const channels = new Map<string, { readonly channel: ApprovalChannel; readonly address: Redacted.Redacted<string> }>()
  const messages = new Map<string, StoredMessage>()
  let next = 0
  return Layer.succeed(ApprovalChannels, ApprovalChannels.of({
    add: (channel, address) => Effect.sync(() => void channels.set(channel.id, { channel, address })),
    list: (projectId) =>
      Effect.sync(() => [...channels.values()].map(({ channel }) => channel).filter((channel) => channel.projectId === projectId)),
    remove: (projectId, id) =>
      channels.get(id)?.channel.projectId === projectId
        ? Effect.sync(() => void channels.delete(id))
        : Effect.fail(new ApprovalChannelNotFound({ channelId: id })),
    fanOut: (now) =>
      Effect.sync(() => {
        let queued = 0
        for (const { post } of data.posts.values()) {
          if (post.status !== "pending_approval" || post.supersededBy !== null) continue
          for (const { address, channel } of channels.values()) {
            const owed = channel.projectId === post.projectId && !DateTime.greaterThan(channel.createdAt, post.updatedAt)
            const known = [...messages.values()].some(({ message }) =>
              message.postId === post.id && message.postVersion === post.version && message.channel.id === channel.id
            )
            if (!owed || known) continue
            const id = ApprovalMessageId.make(`00000000-0000-4000-a000-${(++next).toString(16).padStart(12, "0")}`)
            messages.set(id, {
              message: { id, projectId: post.projectId, postId: post.id, postVersion: post.version, channel, address },
              attempts: 0,
              status: "pending",
              dueAt: now,
              lease: null
            })
            queued++
          }
        }
        return queued
      }),
    claimDue: ({ leaseMillis, limit, now, worker }) =>
      Effect.sync(() =>
        [...messages.values()]
          .filter((stored) =>
            stored.status === "pending" && channels.has(stored.message.channel.id) && !DateTime.greaterThan(stored.dueAt, now) &&
            (stored.lease === null || !DateTime.greaterThan(stored.lease.until, now))
          )
          .slice(0, limit)
          .map((stored) => {
            stored.lease = { worker, until: DateTime.addDuration(now, `${leaseMillis} millis`) }
            return { ...stored.message, attempts: stored.attempts }
          })
      ),
    complete: (id, worker, outcome) =>
      Effect.sync(() => {
        const stored = messages.get(id)
        if (stored === undefined || stored.status !== "pending" || stored.lease?.worker !== worker) return
        stored.attempts += outcome._tag === "Skipped" ? 0 : 1
        stored.status = outcome._tag === "Sent" ? "sent" : outcome._tag === "Skipped" ? "skipped" : outcome._tag === "GaveUp" ? "given_up" : "pending"
        stored.dueAt = outcome._tag === "Retry" ? outcome.dueAt : outcome.at
        stored.lease = null
      }),
    recipientOf: (projectId, id) =>
      Effect.sync(() =>
        Option.fromNullable(messages.get(id)).pipe(
          Option.filter(({ message }) => message.projectId === projectId),
          Option.map(({ message }) => ({ kind: message.channel.kind, recipient: message.channel.recipient }))
        )
      )
  }))
}
