import { Layer } from "effect"
import { OAuthCallbackLive } from "../OAuthCallback.js"
import { AdminApprovalChannelsLive } from "./AdminApprovalChannelsLive.js"
import { AdminAccountsLive, AdminKeysLive, AdminProjectsLive, AdminSpecLive, AdminWebhooksLive } from "./AdminHandlers.js"
import { AdminAuthenticationLive, AdminBodyGuardLive, AdminUrlGuardLive } from "./AdminMiddleware.js"
import { AdminPublishingLive } from "./AdminPublishingLive.js"
import { AdminWebhookDeliveriesLive } from "./AdminWebhookDeliveriesLive.js"

/**
 * The admin routes, added to the router HttpApiLive serves (merge the two layers). They answer
 * with their own error classes (HttpErrors.ts, Admin*) beside the shared ones, and the server's
 * failure shaping (FailuresLive: each class's status, a 400 for a request that does not decode, a
 * bare 500 for a defect) covers them as it does the public API's.
 * Needs ProjectAdmin, ProjectStore, ApiKeyStore, AccountStore, AccountAdmin, WebhookEndpoints,
 * WebhookDeliveryLog, WebhookDestinations, WebhookTestEvents, IdGenerator, SecretMint, AdminTokens, OAuthProviders,
 * ConnectionStates, PublishingPauses, ApprovalChannels, ApprovalMessengers and HttpApiConfig. The public OAuth callback (GET /oauth/callback/{platform})
 * comes with them: it finishes what the admin API's accounts/oauth starts.
 */
export const AdminApiRoutes = Layer.mergeAll(
  AdminProjectsLive,
  AdminKeysLive,
  AdminAccountsLive,
  AdminWebhooksLive,
  AdminWebhookDeliveriesLive,
  AdminPublishingLive,
  AdminApprovalChannelsLive,
  AdminSpecLive,
  OAuthCallbackLive
).pipe(Layer.provide([AdminBodyGuardLive, AdminUrlGuardLive]))

/** The admin routes behind admin tokens (AdminApiRoutes still needs who admits the operator: the SDK admits its host). */
export const AdminApiLive = AdminApiRoutes.pipe(Layer.provide(AdminAuthenticationLive))
