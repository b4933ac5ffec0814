import { Context, type Effect, type Option, type Redacted, Schema } from "effect"
import type { ApprovalChannelKind } from "../ApprovalChannel.js"

/** What one approval channel message says about a held post. */
export interface ApprovalNotice {
  readonly projectName: string
  readonly postId: string
  /** One line per target: the network, the handle and the caption as it would print there. */
  readonly targets: ReadonlyArray<{ readonly network: string; readonly username: string; readonly text: string | null }>
  /** When the post is due (ISO 8601 UTC); null: as soon as it is approved. */
  readonly scheduledAt: string | null
  /** The message's own signed link to the approval page (deciding there is a POST). */
  readonly link: string
  /** The post's first image: its URL (served under the link) and, for mail, its bytes. */
  readonly picture: Option.Option<{ readonly url: string; readonly mime: string; readonly bytes: Uint8Array }>
}

/** Why a message did not go out; the worker retries it on its schedule, then gives up. */
export class ApprovalMessageFailed extends Schema.TaggedError<ApprovalMessageFailed>()("ApprovalMessageFailed", {
  reason: Schema.String
}) {
  override get message(): string {
    return `approval message not sent: ${this.reason}`
  }
}

/** Sends approval messages: mail over the configured SMTP server, chat through the outbound guard. */
export class ApprovalMessengers extends Context.Tag("@herald/core/ApprovalMessengers")<ApprovalMessengers, {
  /** False when no SMTP server is configured: e-mail channels are refused. */
  readonly emailConfigured: boolean
  readonly send: (
    kind: ApprovalChannelKind,
    address: Redacted.Redacted<string>,
    notice: ApprovalNotice
  ) => Effect.Effect<void, ApprovalMessageFailed>
}>() {}
