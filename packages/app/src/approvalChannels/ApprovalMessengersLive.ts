import { ApprovalMessageFailed, ApprovalMessengers } from "@herald/core"
import { OutboundGuard } from "@herald/outbound"
import { Config, Effect, Layer, Option } from "effect"
import { sendChat } from "./ChatMessenger.js"
import { emailSender, type SmtpSettings } from "./EmailMessenger.js"

/** Mail through `smtp` when given (none: e-mail channels are refused), chat through the outbound guard. */
export const approvalMessengers = (smtp: Option.Option<SmtpSettings>) =>
  Layer.scoped(
    ApprovalMessengers,
    Effect.gen(function*() {
      const guard = yield* OutboundGuard
      const email = yield* Effect.transposeOption(Option.map(smtp, emailSender))
      return ApprovalMessengers.of({
        emailConfigured: Option.isSome(email),
        send: (kind, address, notice) =>
          kind === "chat"
            ? sendChat(address, notice).pipe(Effect.provideService(OutboundGuard, guard))
            : Option.match(email, {
              onNone: () => Effect.fail(new ApprovalMessageFailed({ reason: "no SMTP server is configured (HERALD_SMTP_URL)" })),
              onSome: (send) => send(address, notice)
            })
      })
    })
  )

/** HERALD_SMTP_URL with HERALD_SMTP_FROM (both or neither). */
export const smtpConfig: Config.Config<Option.Option<SmtpSettings>> = Config.all({
  url: Config.option(Config.redacted("HERALD_SMTP_URL")),
  from: Config.option(Config.string("HERALD_SMTP_FROM"))
}).pipe(
  Config.validate({
    message: "HERALD_SMTP_URL and HERALD_SMTP_FROM go together: set both for e-mail approval channels, or neither",
    validation: ({ from, url }) => Option.isSome(url) === Option.isSome(from)
  }),
  Config.map(({ from, url }) => Option.zipWith(url, from, (url, from) => ({ url, from })))
)

/** The messengers as configured by the environment. */
export const approvalMessengersFromEnv = Layer.unwrapEffect(Effect.map(smtpConfig, approvalMessengers))
