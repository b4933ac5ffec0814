import { DateTime, Effect } from "effect"
import type { SocialAccount } from "./Account.js"
import type { ConnectionFinding } from "./ConnectionIssue.js"
import { toWireError } from "./DeliveryError.js"
import { type EventKind, OutboxEvent } from "./Event.js"
import { EventId, type ProjectId } from "./Ids.js"
import type { PostRecord } from "./ports/PostStore.js"
import { IdGenerator } from "./ports/IdGenerator.js"
import { provenanceOf } from "./Provenance.js"

/**
 * The `data` of each webhook event kind (docs/webhooks.md shows them). post.published is fixed by
 * the contract; the others follow its shape so a subscriber parses one post summary everywhere.
 * A partial post emits post.published (status partial, delivered < targets); post.failed means
 * nothing went out.
 */
const postSummary = ({ deliveries, post }: PostRecord) => ({
  id: post.id,
  caption: post.caption,
  status: post.status,
  delivered: deliveries.filter((delivery) => delivery.wentOut).length,
  targets: deliveries.length,
  provenance: provenanceOf(post)
})

const deliverySummaries = ({ deliveries }: PostRecord) =>
  deliveries.map((delivery) => ({
    platform: delivery.platform,
    username: delivery.username,
    status: delivery.status,
    url: delivery.url,
    error: delivery.error === null ? null : toWireError(delivery.error),
    error_category: delivery.error?.category ?? null
  }))

export const settledData = (record: PostRecord) => ({
  post: postSummary(record),
  deliveries: deliverySummaries(record)
})

export const decidedData = (record: PostRecord) => {
  const decision = record.post.decision
  return {
    post: postSummary(record),
    decision: decision === null
      ? null
      : {
        outcome: decision.outcome,
        via: decision.via,
        by_key_id: decision.by,
        by_key_name: decision.byName,
        surface: decision.surface,
        at: DateTime.formatIso(decision.at),
        reason: decision.reason
      }
  }
}

/**
 * account.needs_reconnect: the account as marked, `reason` (as before) and the incident it opens:
 * its kind, the detail in plain words and since when.
 */
export const deadLoginData = (account: SocialAccount, finding: Pick<ConnectionFinding, "kind" | "detail">, since: DateTime.Utc) => ({
  account: { id: account.id, platform: account.platform, username: account.username, status: account.status },
  reason: finding.detail,
  kind: finding.kind,
  detail: finding.detail,
  since: DateTime.formatIso(since)
})

/**
 * An event about a change Herald is making. Its fields are typed already (only the generated id is
 * checked), so the event is not validated again: that cost more than building the change it rides on.
 */
export const makeEvent = (projectId: ProjectId, kind: EventKind, data: Record<string, unknown>) =>
  Effect.zipWith(
    Effect.flatMap(IdGenerator, (ids) => ids.uuid),
    DateTime.now,
    (id, createdAt) => new OutboxEvent({ id: EventId.make(id), projectId, kind, createdAt, data }, true)
  )
