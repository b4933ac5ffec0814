import { DateTime, Duration, Effect, type Redacted, Schema } from "effect"
import { EventKind } from "../../Event.js"
import { type ProjectId, WebhookEndpointId } from "../../Ids.js"
import { IdGenerator } from "../../ports/IdGenerator.js"
import { SecretMint } from "../../ports/SecretMint.js"
import { WebhookDestinations } from "../../ports/WebhookDestinations.js"
import { WebhookEndpoint, WebhookEndpointNotFound, WebhookEndpoints } from "../../ports/WebhookEndpoints.js"
import { WebhookTestEvents } from "../../ports/WebhookTestEvents.js"
import { getProject } from "./Projects.js"

export interface WebhookSubscription {
  readonly url: string
  readonly kinds: ReadonlyArray<EventKind>
}

/** An endpoint just made, and its signing secret, shown this once. */
export interface CreatedWebhookEndpoint {
  readonly endpoint: WebhookEndpoint
  readonly secret: Redacted.Redacted<string>
}

export const listWebhookEndpoints = (projectId: ProjectId) =>
  Effect.zipRight(getProject(projectId), Effect.flatMap(WebhookEndpoints, (store) => store.list(projectId)))

/** An enabled endpoint, once its URL passed the destination check (WebhookDestinationRefused otherwise). */
export const createWebhookEndpoint = Effect.fnUntraced(function*(projectId: ProjectId, subscription: WebhookSubscription) {
  yield* getProject(projectId)
  yield* Effect.flatMap(WebhookDestinations, (destinations) => destinations.check(subscription.url))
  const endpoint = new WebhookEndpoint({
    id: WebhookEndpointId.make(yield* Effect.flatMap(IdGenerator, (ids) => ids.uuid)),
    projectId,
    url: subscription.url,
    kinds: [...new Set(subscription.kinds)],
    enabled: true,
    consecutiveFailures: 0,
    lastError: null,
    createdAt: yield* DateTime.now
  })
  const secret = yield* Effect.flatMap(SecretMint, (mint) => mint.webhookSecret)
  yield* Effect.flatMap(WebhookEndpoints, (store) => store.create(endpoint, secret))
  return { endpoint, secret } satisfies CreatedWebhookEndpoint
})

/** What PATCH changes on an endpoint (the admin API's body, the SDK's argument); an omitted field is kept. */
export const WebhookEndpointChange = Schema.Struct({
  enabled: Schema.optional(Schema.Boolean).annotations({
    description: "false stops sending; true re-enables (also an endpoint disabled after failures) and clears its failure streak."
  }),
  kinds: Schema.optional(Schema.Array(EventKind).pipe(Schema.minItems(1))).annotations({
    description: "Replaces the subscribed event kinds; applies to events written from then on."
  })
})
export type WebhookEndpointChange = typeof WebhookEndpointChange.Type

/**
 * The endpoint as it now stands. Turning it back on clears its failure streak (the dashboard's
 * "re-enable"); new kinds apply to events written from then on.
 */
export const updateWebhookEndpoint = Effect.fnUntraced(
  function*(projectId: ProjectId, id: WebhookEndpointId, change: WebhookEndpointChange) {
    yield* getProject(projectId)
    const store = yield* WebhookEndpoints
    if (change.kinds !== undefined) yield* store.setKinds(projectId, id, [...new Set(change.kinds)])
    if (change.enabled !== undefined) yield* store.setEnabled(projectId, id, change.enabled)
    // A removal that lands between the update and this read leaves what a later caller gets: not found.
    const endpoint = (yield* store.list(projectId)).find((candidate) => candidate.id === id)
    return endpoint === undefined ? yield* Effect.fail(new WebhookEndpointNotFound({ endpointId: id })) : endpoint
  }
)

/** One signed test event to the endpoint, enabled or not, and what it answered. */
export const sendWebhookTestEvent = Effect.fnUntraced(function*(projectId: ProjectId, id: WebhookEndpointId) {
  const project = yield* getProject(projectId)
  const target = yield* Effect.flatMap(WebhookEndpoints, (store) => store.signingTarget(projectId, id))
  return yield* Effect.flatMap(WebhookTestEvents, (events) => events.send({ endpointId: id, ...target }, project))
})

/** How long the replaced secret keeps signing when the caller does not say: a day, as Stripe's default. */
export const defaultSecretOverlap = Duration.hours(24)
/** The longest overlap a rotation may ask for. */
export const maxSecretOverlap = Duration.days(7)

/** A rotation's outcome: the new secret, shown this once, and until when the old one still signs. */
export interface RotatedWebhookSecret {
  readonly secret: Redacted.Redacted<string>
  readonly previousExpiresAt: DateTime.Utc
}

/**
 * A fresh signing secret for the endpoint. Until `overlap` has passed every request is signed
 * with the old and the new secret, so receivers can switch at their own pace; a zero overlap
 * ends the old secret at once.
 */
export const rotateWebhookSecret = Effect.fnUntraced(
  function*(projectId: ProjectId, id: WebhookEndpointId, overlap: Duration.Duration = defaultSecretOverlap) {
    yield* getProject(projectId)
    const secret = yield* Effect.flatMap(SecretMint, (mint) => mint.webhookSecret)
    const previousExpiresAt = DateTime.addDuration(yield* DateTime.now, overlap)
    yield* Effect.flatMap(WebhookEndpoints, (store) => store.rotateSecret(projectId, id, secret, previousExpiresAt))
    return { secret, previousExpiresAt } satisfies RotatedWebhookSecret
  }
)

export const removeWebhookEndpoint = (projectId: ProjectId, id: WebhookEndpointId) =>
  Effect.zipRight(getProject(projectId), Effect.flatMap(WebhookEndpoints, (store) => store.remove(projectId, id)))
