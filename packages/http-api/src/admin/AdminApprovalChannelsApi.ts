import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ApprovalChannelId, ApprovalChannelKind, NewApprovalChannel, ProjectId, Timestamp } from "@herald/core"
import { Schema } from "effect"
import { AdminNotFound, AdminRefused } from "../HttpErrors.js"

export const AdminApprovalChannel = Schema.Struct({
  id: ApprovalChannelId,
  project_id: ProjectId,
  kind: ApprovalChannelKind,
  recipient: Schema.String.annotations({
    description: "The reviewer's e-mail address, or the chat channel's label: what a decision through its links records. A chat URL is never shown."
  }),
  created_at: Timestamp
}).annotations({ identifier: "AdminApprovalChannel" })
export type AdminApprovalChannel = typeof AdminApprovalChannel.Type

export const CreateApprovalChannelBody = NewApprovalChannel.annotations({
  identifier: "CreateApprovalChannelBody",
  parseOptions: { errors: "all", onExcessProperty: "error" }
})

const projectPath = Schema.Struct({ project_id: ProjectId })

/** Where a project's held posts are announced (docs/approval-channels.md). */
export class AdminApprovalChannelsGroup extends HttpApiGroup.make("approvalChannels")
  .add(
    HttpApiEndpoint.get("list", "/projects/:project_id/approval-channels")
      .setPath(projectPath)
      .addSuccess(Schema.Struct({ data: Schema.Array(AdminApprovalChannel) }).annotations({ identifier: "AdminApprovalChannelList" }))
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "List a project's approval channels")
  )
  .add(
    HttpApiEndpoint.post("create", "/projects/:project_id/approval-channels")
      .setPath(projectPath)
      .setPayload(CreateApprovalChannelBody)
      .addSuccess(AdminApprovalChannel, { status: 201 })
      .addError(AdminNotFound)
      .addError(AdminRefused)
      .annotate(
        OpenApi.Summary,
        "Add a reviewer's e-mail address ({kind: email, address}) or a chat incoming webhook ({kind: chat, url, label}); " +
          "posts held from then on are announced there"
      )
  )
  .add(
    HttpApiEndpoint.del("remove", "/projects/:project_id/approval-channels/:channel_id")
      .setPath(Schema.Struct({ project_id: ProjectId, channel_id: ApprovalChannelId }))
      .addSuccess(
        Schema.Struct({ id: ApprovalChannelId, deleted: Schema.Literal(true) }).annotations({ identifier: "AdminDeletedApprovalChannel" })
      )
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "Remove an approval channel (messages not yet sent to it are dropped; links already sent keep working)")
  )
{}
