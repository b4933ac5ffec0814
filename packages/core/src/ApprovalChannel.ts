import { Schema } from "effect"
import { ApprovalChannelId, ProjectId } from "./Ids.js"

/** email: one reviewer's address; chat: a Slack-compatible incoming-webhook URL. */
export const ApprovalChannelKind = Schema.Literal("email", "chat")
export type ApprovalChannelKind = typeof ApprovalChannelKind.Type

/**
 * Where a project's held posts are announced. `recipient` is what decisions made through the
 * channel's links record: the e-mail address, or the chat channel's label. A chat URL is a
 * credential (whoever has it can post to the channel): it is kept sealed and never shown again.
 */
export class ApprovalChannel extends Schema.Class<ApprovalChannel>("ApprovalChannel")({
  id: ApprovalChannelId,
  projectId: ProjectId,
  kind: ApprovalChannelKind,
  recipient: Schema.String,
  createdAt: Schema.DateTimeUtc
}) {}

export class ApprovalChannelNotFound extends Schema.TaggedError<ApprovalChannelNotFound>()("ApprovalChannelNotFound", {
  channelId: Schema.String
}) {
  override get message(): string {
    return `approval channel ${this.channelId} not found in this project`
  }
}

/** The channel and recipient a channel link was sent to, as the decision records them. */
export const ChannelRecipient = Schema.Struct({ kind: ApprovalChannelKind, recipient: Schema.String })
export type ChannelRecipient = typeof ChannelRecipient.Type
