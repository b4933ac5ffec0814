import { HttpApiBuilder, OpenApi } from "@effect/platform"
import {
  type AccountNotFound,
  type AccountRouteNotSupported,
  AccountAdmin,
  AccountStore,
  ApiKeyStore,
  type ApiKeyNotFound,
  type ApiKeySummary,
  ConnectionChecks,
  Classifier,
  connectAccount,
  type ConnectionMethodMismatch,
  type ConnectionRefused,
  ConnectionStates,
  createApiKey,
  createProject,
  createWebhookEndpoint,
  type DirectRouteUnavailable,
  dryRunGuardrails,
  getProject,
  IdGenerator,
  listAccounts,
  listApiKeys,
  updateApiKeyLimits,
  listProjects,
  listWebhookEndpoints,
  loginConnection,
  OAuthProviders,
  type PlatformNotConfigured,
  type Project,
  ProjectAdmin,
  type ProjectNotFound,
  PostStore,
  ProjectStore,
  removeWebhookEndpoint,
  rotateWebhookSecret,
  retryAuthFailures,
  revokeApiKey,
  SecretMint,
  setAccountStatus,
  sendWebhookTestEvent,
  updateWebhookEndpoint,
  type SocialAccount,
  startConnection,
  updateProject,
  type WebhookDestinationRefused,
  WebhookDestinations,
  type WebhookEndpoint,
  type WebhookEndpointNotFound,
  WebhookEndpoints,
  webhookTestKind,
  WebhookTestEvents
} from "@herald/core"
import { DateTime, Duration, Effect, Redacted } from "effect"
import { AdminNotFound, AdminRefused } from "../HttpErrors.js"
import { HttpApiConfig } from "../ApprovalLinks.js"
import { groupContext } from "../RequestPath.js"
import {
  AdminAuthentication,
  AdminBodyGuard,
  AdminUrlGuard,
  type AdminSocialAccount,
  HeraldAdminApi,
  type AdminApiKey,
  type AdminProject,
  type AdminWebhookEndpoint
} from "./AdminApi.js"

const notFound = (what: "project" | "api_key" | "account" | "webhook_endpoint", id: string) =>
  new AdminNotFound({ error: `${what.replace("_", " ")} ${id} not found${what === "project" ? "" : " in this project"}`, code: `${what}_not_found` })

/** The core's not-found errors as the admin API's 404s (the codes the contract names). */
const ProjectNotFound404 = (e: ProjectNotFound) => Effect.fail(notFound("project", e.projectId))
const ApiKeyNotFound404 = (e: ApiKeyNotFound) => Effect.fail(notFound("api_key", e.keyId))
const AccountNotFound404 = (e: AccountNotFound) => Effect.fail(notFound("account", e.accountId))
const WebhookEndpointNotFound404 = (e: WebhookEndpointNotFound) => Effect.fail(notFound("webhook_endpoint", e.endpointId))

/** Why a direct account cannot be connected the way asked: a 400 naming the field at fault. */
const connectionRefusal = (
  e: AccountRouteNotSupported | ConnectionMethodMismatch | PlatformNotConfigured | DirectRouteUnavailable | ConnectionRefused,
  /** The field a refused connection names (the login's identifier; the keys or the username on the aggregator routes). */
  refusedField = "identifier"
) => {
  const [code, field]: readonly [AdminRefused["code"], string] = e._tag === "AccountRouteNotSupported"
    ? ["route_not_supported", "route"]
    : e._tag === "DirectRouteUnavailable"
    ? ["route_not_supported", "platform"]
    : e._tag === "ConnectionMethodMismatch"
    ? ["connection_method_mismatch", "platform"]
    : e._tag === "PlatformNotConfigured"
    ? ["platform_not_configured", "platform"]
    : ["connection_refused", refusedField]
  return Effect.fail(new AdminRefused({ error: e.message, code, violations: [{ field, account: null, message: e.message }] }))
}

const webhookUrlRefused = (refused: WebhookDestinationRefused) =>
  Effect.fail(
    new AdminRefused({
      error: refused.message,
      code: "webhook_url_refused",
      violations: [{ field: "url", account: null, message: refused.reason }]
    })
  )

const adminProject = (project: Project): AdminProject => ({
  id: project.id,
  name: project.name,
  timezone: project.timezone,
  approval: project.approval,
  signature: project.signature,
  guardrails: project.guardrails,
  plan: project.plan
})

const iso = (instant: DateTime.Utc | null) => instant === null ? null : DateTime.formatIso(instant)

const adminApiKey = (key: ApiKeySummary): AdminApiKey => ({
  id: key.id,
  project_id: key.projectId,
  name: key.name,
  prefix: key.prefix,
  kind: key.kind,
  scopes: key.scopes,
  rate_limit_per_minute: key.rateLimitPerMinute,
  daily_post_cap: key.dailyPostCap,
  created_at: DateTime.formatIso(key.createdAt),
  last_used_at: iso(key.lastUsedAt),
  revoked_at: iso(key.revokedAt)
})

const adminSocialAccount = (account: SocialAccount): AdminSocialAccount => ({
  id: account.id,
  project_id: account.projectId,
  platform: account.platform,
  username: account.username,
  route: account.route,
  status: account.status
})

const adminWebhookEndpoint = (endpoint: WebhookEndpoint): AdminWebhookEndpoint => ({
  id: endpoint.id,
  project_id: endpoint.projectId,
  url: endpoint.url,
  kinds: endpoint.kinds,
  enabled: endpoint.enabled,
  consecutive_failures: endpoint.consecutiveFailures,
  last_error: endpoint.lastError,
  created_at: DateTime.formatIso(endpoint.createdAt)
})

export const AdminProjectsLive = HttpApiBuilder.group(HeraldAdminApi, "projects", (handlers) =>
  handlers
    .handle("list", () => Effect.map(listProjects, (projects) => ({ data: projects.map(adminProject) })))
    .handle("create", ({ payload }) => Effect.map(createProject(payload), adminProject))
    .handle("get", ({ path }) =>
      getProject(path.project_id).pipe(Effect.map(adminProject), Effect.catchTag("ProjectNotFound", ProjectNotFound404)))
    .handle("update", ({ path, payload }) =>
      updateProject(path.project_id, payload).pipe(Effect.map(adminProject), Effect.catchTag("ProjectNotFound", ProjectNotFound404)))
    .handle("checkGuardrails", ({ path, payload }) =>
      dryRunGuardrails(path.project_id, payload.caption, payload.guardrails).pipe(Effect.catchTag("ProjectNotFound", ProjectNotFound404)))
).pipe(groupContext(AdminAuthentication, AdminBodyGuard, AdminUrlGuard, ProjectAdmin, ProjectStore, IdGenerator, Classifier))

export const AdminKeysLive = HttpApiBuilder.group(HeraldAdminApi, "keys", (handlers) =>
  handlers
    .handle("list", ({ path }) =>
      listApiKeys(path.project_id).pipe(
        Effect.map((keys) => ({ data: keys.map(adminApiKey) })),
        Effect.catchTag("ProjectNotFound", ProjectNotFound404)
      ))
    .handle("create", ({ path, payload }) =>
      createApiKey(path.project_id, {
        name: payload.name,
        kind: payload.kind,
        scopes: payload.scopes,
        rateLimitPerMinute: payload.rate_limit_per_minute,
        dailyPostCap: payload.daily_post_cap
      }).pipe(
        Effect.map(({ key, summary }) => ({ ...adminApiKey(summary), key: Redacted.value(key) })),
        Effect.catchTag("ProjectNotFound", ProjectNotFound404)
      ))
    .handle("revoke", ({ path }) =>
      revokeApiKey(path.project_id, path.key_id).pipe(
        Effect.map(adminApiKey),
        Effect.catchTags({ ProjectNotFound: ProjectNotFound404, ApiKeyNotFound: ApiKeyNotFound404 })
      ))
    .handle("update", ({ path, payload }) =>
      updateApiKeyLimits(path.project_id, path.key_id, {
        ...(payload.rate_limit_per_minute === undefined ? {} : { rateLimitPerMinute: payload.rate_limit_per_minute }),
        ...(payload.daily_post_cap === undefined ? {} : { dailyPostCap: payload.daily_post_cap })
      }).pipe(
        Effect.map(adminApiKey),
        Effect.catchTags({ ProjectNotFound: ProjectNotFound404, ApiKeyNotFound: ApiKeyNotFound404 })
      ))
).pipe(groupContext(AdminAuthentication, AdminBodyGuard, AdminUrlGuard, ApiKeyStore, ProjectStore, IdGenerator, SecretMint))

export const AdminAccountsLive = HttpApiBuilder.group(HeraldAdminApi, "accounts", (handlers) =>
  handlers
    .handle("list", ({ path }) =>
      listAccounts(path.project_id).pipe(
        Effect.map((accounts) => ({ data: accounts.map(adminSocialAccount) })),
        Effect.catchTag("ProjectNotFound", ProjectNotFound404)
      ))
    .handle("connect", ({ path, payload }) =>
      connectAccount(path.project_id, {
        platform: payload.platform,
        username: payload.username,
        route: payload.route,
        keys: payload.api_key === undefined ? undefined : { apiKey: payload.api_key, profileKey: payload.profile_key ?? null }
      }).pipe(
        Effect.map(adminSocialAccount),
        Effect.catchTags({
          ProjectNotFound: ProjectNotFound404,
          AccountRouteNotSupported: connectionRefusal,
          ConnectionMethodMismatch: connectionRefusal,
          PlatformNotConfigured: connectionRefusal,
          DirectRouteUnavailable: connectionRefusal,
          ConnectionRefused: (refused) => connectionRefusal(refused, refused.code === "username_mismatch" ? "username" : "api_key")
        })
      ))
    .handle("startOAuth", ({ path, payload }) =>
      Effect.flatMap(HttpApiConfig, (config) =>
        startConnection(path.project_id, payload.platform, { caller: "admin", publicUrl: config.baseUrl, loginHint: payload.identifier }, payload.route)).pipe(
        Effect.map((started) => ({
          authorize_url: started.authorizeUrl,
          expires_at: DateTime.formatIso(started.expiresAt),
          redirect_uri: started.redirectUri
        })),
        Effect.catchTags({
          ProjectNotFound: ProjectNotFound404,
          ConnectionMethodMismatch: connectionRefusal,
          PlatformNotConfigured: connectionRefusal,
          DirectRouteUnavailable: connectionRefusal,
          ConnectionRefused: connectionRefusal
        })
      ))
    .handle("login", ({ path, payload }) =>
      loginConnection(path.project_id, payload.platform, {
        identifier: payload.identifier,
        password: Redacted.make(payload.password)
      }).pipe(
        Effect.map(adminSocialAccount),
        Effect.catchTags({
          ProjectNotFound: ProjectNotFound404,
          ConnectionMethodMismatch: connectionRefusal,
          PlatformNotConfigured: connectionRefusal,
          DirectRouteUnavailable: connectionRefusal,
          ConnectionRefused: connectionRefusal
        })
      ))
    .handle("setStatus", ({ path, payload }) =>
      setAccountStatus(path.project_id, path.account_id, payload.status).pipe(
        Effect.map(adminSocialAccount),
        Effect.catchTags({ ProjectNotFound: ProjectNotFound404, AccountNotFound: AccountNotFound404 })
      ))
    .handle("retryAuthFailures", ({ path }) =>
      retryAuthFailures(path.project_id, path.account_id).pipe(
        Effect.catchTags({ ProjectNotFound: ProjectNotFound404, AccountNotFound: AccountNotFound404 })
      ))
).pipe(groupContext(
  AdminAuthentication,
  AdminBodyGuard,
  AdminUrlGuard,
  AccountAdmin,
  AccountStore,
  ProjectStore,
  IdGenerator,
  OAuthProviders,
  ConnectionStates,
  SecretMint,
  HttpApiConfig,
  ConnectionChecks,
  PostStore
))

export const AdminWebhooksLive = HttpApiBuilder.group(HeraldAdminApi, "webhooks", (handlers) =>
  handlers
    .handle("list", ({ path }) =>
      listWebhookEndpoints(path.project_id).pipe(
        Effect.map((endpoints) => ({ data: endpoints.map(adminWebhookEndpoint) })),
        Effect.catchTag("ProjectNotFound", ProjectNotFound404)
      ))
    .handle("create", ({ path, payload }) =>
      createWebhookEndpoint(path.project_id, payload).pipe(
        Effect.map(({ endpoint, secret }) => ({ ...adminWebhookEndpoint(endpoint), secret: Redacted.value(secret) })),
        Effect.catchTags({ ProjectNotFound: ProjectNotFound404, WebhookDestinationRefused: webhookUrlRefused })
      ))
    .handle("update", ({ path, payload }) =>
      updateWebhookEndpoint(path.project_id, path.webhook_id, payload).pipe(
        Effect.map(adminWebhookEndpoint),
        Effect.catchTags({ ProjectNotFound: ProjectNotFound404, WebhookEndpointNotFound: WebhookEndpointNotFound404 })
      ))
    .handle("test", ({ path }) =>
      sendWebhookTestEvent(path.project_id, path.webhook_id).pipe(
        Effect.map((result) => ({
          event: webhookTestKind,
          delivery_id: result.deliveryId,
          accepted: result.error === null,
          status_code: result.statusCode,
          latency_ms: result.latencyMs,
          response_prefix: result.responsePrefix,
          error: result.error
        })),
        Effect.catchTags({ ProjectNotFound: ProjectNotFound404, WebhookEndpointNotFound: WebhookEndpointNotFound404 })
      ))
    .handle("rotateSecret", ({ path, payload }) =>
      rotateWebhookSecret(
        path.project_id,
        path.webhook_id,
        payload.expires_in_seconds === undefined ? undefined : Duration.seconds(payload.expires_in_seconds)
      ).pipe(
        Effect.map(({ previousExpiresAt, secret }) => ({
          id: path.webhook_id,
          secret: Redacted.value(secret),
          previous_secret_expires_at: DateTime.formatIso(previousExpiresAt)
        })),
        Effect.catchTags({ ProjectNotFound: ProjectNotFound404, WebhookEndpointNotFound: WebhookEndpointNotFound404 })
      ))
    .handle("remove", ({ path }) =>
      removeWebhookEndpoint(path.project_id, path.webhook_id).pipe(
        Effect.as({ id: path.webhook_id, deleted: true as const }),
        Effect.catchTags({ ProjectNotFound: ProjectNotFound404, WebhookEndpointNotFound: WebhookEndpointNotFound404 })
      ))
).pipe(
  groupContext(
    AdminAuthentication,
    AdminBodyGuard,
    AdminUrlGuard,
    WebhookEndpoints,
    WebhookDestinations,
    WebhookTestEvents,
    ProjectStore,
    IdGenerator,
    SecretMint
  )
)

export const AdminSpecLive = HttpApiBuilder.group(
  HeraldAdminApi,
  "adminSpec",
  (handlers) => handlers.handle("openapi", () => Effect.sync(() => ({ ...OpenApi.fromApi(HeraldAdminApi) })))
).pipe(groupContext(AdminUrlGuard))
