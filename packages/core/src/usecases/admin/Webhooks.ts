import { DateTime, Effect, type Redacted } from "effect"
import type { EventKind } from "../../Event.js"
import { type ProjectId, WebhookEndpointId } from "../../Ids.js"
import { IdGenerator } from "../../ports/IdGenerator.js"
import { SecretMint } from "../../ports/SecretMint.js"
import { WebhookDestinations } from "../../ports/WebhookDestinations.js"
import { WebhookEndpoint, WebhookEndpointNotFound, WebhookEndpoints } from "../../ports/WebhookEndpoints.js"
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

/** The endpoint as it now stands (turning it back on clears its failure streak). */
export const setWebhookEndpointEnabled = Effect.fnUntraced(
  function*(projectId: ProjectId, id: WebhookEndpointId, enabled: boolean) {
    yield* getProject(projectId)
    const store = yield* WebhookEndpoints
    yield* store.setEnabled(projectId, id, enabled)
    // A removal that lands between the update and this read leaves what a later caller gets: not found.
    const endpoint = (yield* store.list(projectId)).find((candidate) => candidate.id === id)
    return endpoint === undefined ? yield* Effect.fail(new WebhookEndpointNotFound({ endpointId: id })) : endpoint
  }
)

export const removeWebhookEndpoint = (projectId: ProjectId, id: WebhookEndpointId) =>
  Effect.zipRight(getProject(projectId), Effect.flatMap(WebhookEndpoints, (store) => store.remove(projectId, id)))
