import { HttpApiBuilder } from "@effect/platform"
import {
  addApprovalChannel,
  type ApprovalChannel,
  ApprovalChannels,
  ApprovalMessengers,
  IdGenerator,
  listApprovalChannels,
  ProjectStore,
  removeApprovalChannel,
  WebhookDestinations
} from "@herald/core"
import { DateTime, Effect } from "effect"
import { AdminNotFound, AdminRefused } from "../HttpErrors.js"
import { groupContext } from "../RequestPath.js"
import { AdminAuthentication, AdminBodyGuard, AdminUrlGuard, HeraldAdminApi } from "./AdminApi.js"
import type { AdminApprovalChannel } from "./AdminApprovalChannelsApi.js"

const adminApprovalChannel = (channel: ApprovalChannel): AdminApprovalChannel => ({
  id: channel.id,
  project_id: channel.projectId,
  kind: channel.kind,
  recipient: channel.recipient,
  created_at: DateTime.formatIso(channel.createdAt)
})

const notFound = (code: "project_not_found" | "approval_channel_not_found") => ({ message }: { readonly message: string }) =>
  Effect.fail(new AdminNotFound({ error: message, code }))

const refused = (code: "chat_url_refused" | "email_not_configured", field: string, reason: string) =>
  Effect.fail(new AdminRefused({ error: reason, code, violations: [{ field, account: null, message: reason }] }))

export const AdminApprovalChannelsLive = HttpApiBuilder.group(HeraldAdminApi, "approvalChannels", (handlers) =>
  handlers
    .handle("list", ({ path }) =>
      listApprovalChannels(path.project_id).pipe(
        Effect.map((channels) => ({ data: channels.map(adminApprovalChannel) })),
        Effect.catchTag("ProjectNotFound", notFound("project_not_found"))
      ))
    .handle("create", ({ path, payload }) =>
      addApprovalChannel(path.project_id, payload).pipe(
        Effect.map(adminApprovalChannel),
        Effect.catchTags({
          ProjectNotFound: notFound("project_not_found"),
          // The guard's reason names the host and address, never the URL's path (the credential part).
          WebhookDestinationRefused: (e) => refused("chat_url_refused", "url", `chat URL refused: ${e.reason}`),
          EmailNotConfigured: (e) => refused("email_not_configured", "kind", e.message)
        })
      ))
    .handle("remove", ({ path }) =>
      removeApprovalChannel(path.project_id, path.channel_id).pipe(
        Effect.as({ id: path.channel_id, deleted: true as const }),
        Effect.catchTags({ ProjectNotFound: notFound("project_not_found"), ApprovalChannelNotFound: notFound("approval_channel_not_found") })
      ))
).pipe(groupContext(
  AdminAuthentication,
  AdminBodyGuard,
  AdminUrlGuard,
  ApprovalChannels,
  ApprovalMessengers,
  WebhookDestinations,
  ProjectStore,
  IdGenerator
))
