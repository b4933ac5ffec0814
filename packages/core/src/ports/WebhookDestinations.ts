import { Context, type Effect, Schema } from "effect"

/** The URL is not a public https destination; `reason` names the host and the address. */
export class WebhookDestinationRefused extends Schema.TaggedError<WebhookDestinationRefused>()(
  "WebhookDestinationRefused",
  { url: Schema.String, reason: Schema.String }
) {
  override get message(): string {
    return `webhook URL refused: ${this.reason}`
  }
}

/**
 * Judges a webhook URL when an endpoint is created, by the same rules the sender applies again at
 * connect time (https, every resolved address publicly routable). Creation-time checking only
 * spares the user a silent failure later; the connect-time check is the one that protects.
 */
export class WebhookDestinations extends Context.Tag("@herald/core/WebhookDestinations")<WebhookDestinations, {
  readonly check: (url: string) => Effect.Effect<void, WebhookDestinationRefused>
}>() {}
