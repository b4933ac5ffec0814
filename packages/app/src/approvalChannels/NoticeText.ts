import type { ApprovalNotice } from "@herald/core"
import { escapeHtml } from "@herald/http-api"

/** The subject every channel's message leads with. */
export const noticeTitle = (notice: ApprovalNotice) => `${notice.projectName}: a post is waiting for your approval`

const when = (notice: ApprovalNotice) =>
  notice.scheduledAt === null ? "Publishes as soon as it is approved." : `Scheduled for ${notice.scheduledAt} (UTC).`

const targetLine = (target: ApprovalNotice["targets"][number]) => `${target.network} @${target.username}`

/** The plain-text body (mail's text part, chat's fallback). The link opens the approval page; deciding there is a POST. */
export const noticeText = (notice: ApprovalNotice): string =>
  [
    noticeTitle(notice),
    "",
    ...notice.targets.flatMap((target) => [`${targetLine(target)}:`, target.text ?? "(no caption is printed here)", ""]),
    when(notice),
    "",
    `Approve or reject: ${notice.link}`
  ].join("\n")

/** The mail's HTML body; the picture, when the post has one, is the attachment named by `pictureCid`. */
export const noticeHtml = (notice: ApprovalNotice, pictureCid: string | null): string =>
  `<p><strong>${escapeHtml(noticeTitle(notice))}</strong></p>` +
  notice.targets.map((target) =>
    `<p><strong>${escapeHtml(targetLine(target))}</strong><br>${
      target.text === null ? "<em>(no caption is printed here)</em>" : escapeHtml(target.text).replaceAll("\n", "<br>")
    }</p>`
  ).join("") +
  (pictureCid === null ? "" : `<p><img src="cid:${pictureCid}" alt="The post's picture" style="max-width:100%"></p>`) +
  `<p>${escapeHtml(when(notice))}</p>` +
  `<p><a href="${escapeHtml(notice.link)}">Open the approval page to approve or reject</a></p>`
