import { type ApprovalNotice, ApprovalMessageFailed } from "@herald/core"
import { OutboundGuard } from "@herald/outbound"
import { Duration, Effect, Option, Redacted } from "effect"
import { noticeText, noticeTitle } from "./NoticeText.js"

/** Slack's mrkdwn needs only these three escaped; its section text holds at most 3000 characters. */
const mrkdwn = (text: string) => text.replace(/[&<>]/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[char]!)
const sectionLimit = 3000

/**
 * The Slack-compatible incoming-webhook payload (Block Kit; Mattermost, Rocket.Chat and Discord's
 * /slack endpoints take it too): the text fallback, each target's caption, the picture by URL, and
 * a link button to the approval page (incoming webhooks cannot take interactive buttons, and
 * deciding stays a POST on that page anyway).
 */
export const chatPayload = (notice: ApprovalNotice) => ({
  text: noticeText(notice),
  blocks: [
    { type: "header", text: { type: "plain_text", text: noticeTitle(notice).slice(0, 150) } },
    ...notice.targets.map((target) => ({
      type: "section",
      text: {
        type: "mrkdwn",
        text: `*${mrkdwn(`${target.network} @${target.username}`)}*\n${mrkdwn(target.text ?? "(no caption is printed here)")}`
          .slice(0, sectionLimit)
      }
    })),
    ...Option.match(notice.picture, {
      onNone: () => [],
      onSome: (picture) => [{ type: "image", image_url: picture.url, alt_text: "The post's picture" }]
    }),
    {
      type: "context",
      elements: [{ type: "mrkdwn", text: notice.scheduledAt === null ? "Publishes once approved." : `Scheduled for ${notice.scheduledAt} (UTC).` }]
    },
    {
      type: "actions",
      elements: [{ type: "button", text: { type: "plain_text", text: "Open to approve or reject" }, url: notice.link, style: "primary" }]
    }
  ]
})

const chatTimeout = Duration.seconds(10)

/**
 * POSTs the payload to the incoming-webhook URL through the outbound guard (public https
 * destinations only, re-judged at connect time). The URL is a credential, so no failure repeats it.
 */
export const sendChat = (url: Redacted.Redacted<string>, notice: ApprovalNotice) =>
  Effect.gen(function*() {
    const guard = yield* OutboundGuard
    const status = yield* Effect.scoped(Effect.map(
      guard.request({
        method: "POST",
        url: Redacted.value(url),
        headers: { "content-type": "application/json" },
        body: JSON.stringify(chatPayload(notice)),
        timeout: chatTimeout,
        maxBytes: 64 * 1024
      }),
      (response) => response.status
    )).pipe(
      Effect.mapError((error) =>
        new ApprovalMessageFailed({
          reason: error._tag === "OutboundTimeout"
            ? `the chat service did not answer within ${Duration.format(chatTimeout)}`
            : error._tag === "OutboundRefused"
            ? "the outbound guard refused the chat URL's destination"
            : `the chat service could not be reached (${error._tag})`
        })
      )
    )
    if (status < 200 || status >= 300) return yield* new ApprovalMessageFailed({ reason: `the chat service answered ${status}` })
  })
