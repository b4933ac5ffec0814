import { WebhookDestinationRefused, WebhookDestinations } from "@herald/core"
import { OutboundGuard } from "@herald/outbound"
import { Effect, Layer } from "effect"

/** WebhookDestinations by the outbound guard's rules: what the admin API checks on endpoint creation. */
export const WebhookDestinationsLive = Layer.effect(
  WebhookDestinations,
  Effect.map(OutboundGuard, (guard) =>
    WebhookDestinations.of({
      check: (url) =>
        guard.check(url).pipe(Effect.mapError(({ reason }) => new WebhookDestinationRefused({ url, reason })))
    }))
)
