import { DateTime, Effect, Redacted, Schema } from "effect"
import { ApprovalChannel } from "../../ApprovalChannel.js"
import { ApprovalChannelId, type ProjectId } from "../../Ids.js"
import { ApprovalChannels } from "../../ports/ApprovalChannels.js"
import { ApprovalMessengers } from "../../ports/ApprovalMessengers.js"
import { IdGenerator } from "../../ports/IdGenerator.js"
import { WebhookDestinations } from "../../ports/WebhookDestinations.js"
import { getProject } from "./Projects.js"

/** Adding an e-mail channel on an instance with no SMTP server configured (HERALD_SMTP_URL). */
export class EmailNotConfigured extends Schema.TaggedError<EmailNotConfigured>()("EmailNotConfigured", {}) {
  override get message(): string {
    return "e-mail approval channels need an SMTP server: set HERALD_SMTP_URL and HERALD_SMTP_FROM"
  }
}

const EmailAddress = Schema.Trim.pipe(
  Schema.maxLength(254),
  Schema.pattern(/^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/, { message: () => "must be one e-mail address, like reviewer@example.com" })
)

/** The admin API's body and the SDK's argument: a reviewer's address, or a chat incoming-webhook URL. */
export const NewApprovalChannel = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("email"), address: EmailAddress }),
  Schema.Struct({
    kind: Schema.Literal("chat"),
    // Descriptions go on the fields, not their types: a type's description becomes its refusal message.
    url: Schema.propertySignature(Schema.Trim.pipe(Schema.maxLength(2000))).annotations({
      description: "A Slack-compatible incoming-webhook URL; it is a credential: kept sealed, never shown again."
    }),
    label: Schema.propertySignature(Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(200))).annotations({
      description: "Who the channel reaches, e.g. #approvals: what a decision through its links records."
    })
  })
)
export type NewApprovalChannel = typeof NewApprovalChannel.Type

export const listApprovalChannels = (projectId: ProjectId) =>
  Effect.zipRight(getProject(projectId), Effect.flatMap(ApprovalChannels, (channels) => channels.list(projectId)))

/**
 * A channel for the project's posts held from now on. A chat URL must pass the outbound guard's
 * rules (WebhookDestinationRefused), as webhook URLs do; mail needs an SMTP server (EmailNotConfigured).
 */
export const addApprovalChannel = Effect.fnUntraced(function*(projectId: ProjectId, input: NewApprovalChannel) {
  yield* getProject(projectId)
  if (input.kind === "email" && !(yield* ApprovalMessengers).emailConfigured) return yield* new EmailNotConfigured()
  if (input.kind === "chat") yield* Effect.flatMap(WebhookDestinations, (destinations) => destinations.check(input.url))
  const channel = new ApprovalChannel({
    id: ApprovalChannelId.make(yield* Effect.flatMap(IdGenerator, (ids) => ids.uuid)),
    projectId,
    kind: input.kind,
    recipient: input.kind === "email" ? input.address : input.label,
    createdAt: yield* DateTime.now
  })
  yield* Effect.flatMap(ApprovalChannels, (channels) =>
    channels.add(channel, Redacted.make(input.kind === "email" ? input.address : input.url)))
  return channel
})

export const removeApprovalChannel = (projectId: ProjectId, id: ApprovalChannelId) =>
  Effect.zipRight(getProject(projectId), Effect.flatMap(ApprovalChannels, (channels) => channels.remove(projectId, id)))
