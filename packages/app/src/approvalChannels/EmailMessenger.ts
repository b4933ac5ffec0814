import { type ApprovalNotice, ApprovalMessageFailed } from "@herald/core"
import { Effect, Option, Redacted, type Scope } from "effect"
import { noticeHtml, noticeText, noticeTitle } from "./NoticeText.js"

/** HERALD_SMTP_URL and HERALD_SMTP_FROM (docs/configuration.md). */
export interface SmtpSettings {
  /** smtp://user:password@host:587 (STARTTLS when the server offers it) or smtps://...:465; it holds the password. */
  readonly url: Redacted.Redacted<string>
  /** The sender, e.g. "Herald <herald@example.com>". */
  readonly from: string
}

const pictureCid = "post-picture@herald"

/**
 * The reviewer's mail, sent with nodemailer over the configured SMTP server (the operator's own,
 * like the database: not judged by the outbound guard). The picture travels inline, since most
 * mail clients block remote images. Failures say what the server answered, never the URL.
 */
export const emailSender = (settings: SmtpSettings): Effect.Effect<
  (address: Redacted.Redacted<string>, notice: ApprovalNotice) => Effect.Effect<void, ApprovalMessageFailed>,
  never,
  Scope.Scope
> =>
  Effect.map(
    Effect.acquireRelease(
      // nodemailer is imported only where SMTP is configured: other servers never hold its code
      // (bench/README.md, Footprint). The transport is still made here, at start.
      Effect.promise(() => import("nodemailer")).pipe(
        Effect.map(({ createTransport }) =>
          createTransport({ url: Redacted.value(settings.url), connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 })
        )
      ),
      (transport) => Effect.sync(() => transport.close())
    ),
    (transport) => (address, notice) => {
      const picture = Option.filter(notice.picture, (p) => p.bytes.length > 0)
      return Effect.tryPromise({
        try: () =>
          transport.sendMail({
            from: settings.from,
            to: Redacted.value(address),
            subject: noticeTitle(notice),
            text: noticeText(notice),
            html: noticeHtml(notice, Option.isSome(picture) ? pictureCid : null),
            attachments: Option.match(picture, {
              onNone: () => [],
              onSome: (p) => [{ filename: "picture", content: Buffer.from(p.bytes), contentType: p.mime, cid: pictureCid }]
            })
          }),
        catch: (error) =>
          new ApprovalMessageFailed({
            reason: `the SMTP server did not take the mail: ${error instanceof Error ? error.message : String(error)}`
          })
      }).pipe(Effect.asVoid)
    }
  )
