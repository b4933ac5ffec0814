import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSecurity,
  HttpServerRequest,
  OpenApi
} from "@effect/platform"
import {
  AccountId,
  AccountStatus,
  ActorKind,
  ApiKeyId,
  DailyPostCap,
  ApprovalMode,
  ConnectionRoute,
  EventKind,
  GuardrailSettings,
  GuardrailVerdict,
  Platform,
  PlanStatus,
  ProjectId,
  RateLimitPerMinute,
  Scope,
  TimeZone,
  Timestamp,
  maxSecretOverlap,
  WebhookEndpointChange,
  WebhookEndpointId,
  webhookTestKind
} from "@herald/core"
import { Duration, Schema } from "effect"
import { OpenApiDocument } from "../Api.js"
import { finishAdminDocument } from "../OpenApiDocument.js"
import { AdminApprovalChannelsGroup } from "./AdminApprovalChannelsApi.js"
import { AdminPublishingGroup } from "./AdminPublishingApi.js"
import { AdminWebhookDeliveriesGroup } from "./AdminWebhookDeliveriesApi.js"
import {
  AdminNotFound,
  AdminRefused,
  AdminUnauthorized,
  SessionEndedReply,
  SessionRefused,
  BadRequest,
  InternalError,
  PayloadTooLarge,
  UnsupportedMediaType
} from "../HttpErrors.js"

/** Request schemas refuse unknown fields and report every invalid field, as the public API does. */
const strict = { errors: "all", onExcessProperty: "error" } as const
const request = <S extends Schema.Schema.Any>(schema: S, identifier: string): S =>
  schema.annotations({ identifier, parseOptions: strict }) as S

/**
 * The admin token: `Authorization: Bearer hk_admin_...`. Only its SHA-256 is stored; a missing or
 * wrong token answers 401.
 */
export class AdminAuthentication extends HttpApiMiddleware.Tag<AdminAuthentication>()("AdminAuthentication", {
  failure: Schema.Union(AdminUnauthorized, SessionEndedReply, SessionRefused),
  security: {
    adminToken: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "The admin token: Authorization: Bearer hk_admin_... (the dashboard sends the operator's session cookie instead, docs/dashboard.md)"
      )
    )
  }
}) {}

/**
 * Refuses a non-JSON Content-Type (415), an oversized body (413), bytes that are not UTF-8 JSON,
 * and JSON nested too deep or holding text that cannot be stored (400).
 */
export class AdminBodyGuard extends HttpApiMiddleware.Tag<AdminBodyGuard>()("AdminBodyGuard", {
  failure: Schema.Union(BadRequest, PayloadTooLarge, UnsupportedMediaType),
  provides: HttpServerRequest.HttpServerRequest
}) {}

/** Refuses undeclared query parameters and path or query values that cannot be stored (400), as RequestUrlGuard does. */
export class AdminUrlGuard extends HttpApiMiddleware.Tag<AdminUrlGuard>()("AdminUrlGuard", { failure: BadRequest }) {}

// ---------------------------------------------------------------------------------------------
// Projects
// ---------------------------------------------------------------------------------------------

export const AdminProject = Schema.Struct({
  id: ProjectId,
  name: Schema.String,
  timezone: Schema.String,
  approval: ApprovalMode,
  signature: Schema.String,
  guardrails: GuardrailSettings.annotations({ identifier: "GuardrailSettings" }),
  plan: PlanStatus
}).annotations({ identifier: "AdminProject" })
export type AdminProject = typeof AdminProject.Type

const ProjectName = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(200))

/** Any subset of the guardrail settings; omitted rules keep their current value. */
export const GuardrailPatch = Schema.partial(GuardrailSettings).annotations({ identifier: "GuardrailPatch" })

export const CreateProjectBody = request(
  Schema.Struct({
    name: ProjectName,
    timezone: Schema.optionalWith(TimeZone, { default: () => "UTC" }),
    approval: Schema.optionalWith(ApprovalMode, { default: () => "copilot" as const }),
    signature: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(1000)), { default: () => "" }),
    guardrails: Schema.optional(GuardrailPatch),
    plan: Schema.optionalWith(PlanStatus, { default: () => "active" as const })
  }),
  "CreateProjectBody"
)

export const UpdateProjectBody = request(
  Schema.Struct({
    name: Schema.optional(ProjectName),
    timezone: Schema.optional(TimeZone),
    approval: Schema.optional(ApprovalMode),
    signature: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
    guardrails: Schema.optional(GuardrailPatch),
    plan: Schema.optional(PlanStatus)
  }),
  "UpdateProjectBody"
)

const projectPath = Schema.Struct({ project_id: ProjectId })

export const GuardrailDryRunBody = request(
  Schema.Struct({
    caption: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10000)),
    guardrails: Schema.optional(GuardrailPatch).annotations({ description: "Rules to try instead of the saved ones; omitted rules keep theirs." })
  }),
  "GuardrailDryRunBody"
)

export class AdminProjectsGroup extends HttpApiGroup.make("projects")
  .add(
    HttpApiEndpoint.get("list", "/projects")
      .addSuccess(Schema.Struct({ data: Schema.Array(AdminProject) }).annotations({ identifier: "AdminProjectList" }))
      .annotate(OpenApi.Summary, "List projects")
  )
  .add(
    HttpApiEndpoint.post("create", "/projects")
      .setPayload(CreateProjectBody)
      .addSuccess(AdminProject, { status: 201 })
      .annotate(OpenApi.Summary, "Create a project (defaults: UTC, copilot, no signature, no guardrails, active plan)")
  )
  .add(
    HttpApiEndpoint.get("get", "/projects/:project_id")
      .setPath(projectPath)
      .addSuccess(AdminProject)
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "Read a project")
  )
  .add(
    HttpApiEndpoint.patch("update", "/projects/:project_id")
      .setPath(projectPath)
      .setPayload(UpdateProjectBody)
      .addSuccess(AdminProject)
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "Change a project's settings; omitted fields (and guardrail rules) are kept")
  )
  .add(
    HttpApiEndpoint.post("checkGuardrails", "/projects/:project_id/guardrails/check")
      .setPath(projectPath)
      .setPayload(GuardrailDryRunBody)
      .addSuccess(GuardrailVerdict.annotations({ identifier: "GuardrailVerdict" }))
      .addError(AdminNotFound)
      .annotate(
        OpenApi.Summary,
        "Dry run: the verdict a caption would get under the project's guardrails, with `guardrails` (not saved) applied over them"
      )
  )
{}

// ---------------------------------------------------------------------------------------------
// API keys
// ---------------------------------------------------------------------------------------------

export const AdminApiKey = Schema.Struct({
  id: ApiKeyId,
  project_id: ProjectId,
  name: Schema.String,
  prefix: Schema.String.annotations({ description: "The readable start of the key, to tell keys apart." }),
  kind: ActorKind,
  scopes: Schema.Array(Scope),
  rate_limit_per_minute: Schema.Int,
  daily_post_cap: Schema.NullOr(Schema.Int),
  created_at: Timestamp,
  last_used_at: Schema.NullOr(Timestamp),
  revoked_at: Schema.NullOr(Timestamp)
}).annotations({ identifier: "AdminApiKey" })
export type AdminApiKey = typeof AdminApiKey.Type

export const CreatedKey = Schema.Struct({
  ...AdminApiKey.fields,
  key: Schema.String.annotations({ description: "The key itself. Shown once, in this reply only: Herald keeps its SHA-256." })
}).annotations({ identifier: "AdminCreatedApiKey" })

export const CreateKeyBody = request(
  Schema.Struct({
    name: Schema.optionalWith(Schema.Trim.pipe(Schema.maxLength(200)), { default: () => "" }),
    kind: ActorKind.annotations({ description: "agent or human; fixed for the key's life." }),
    scopes: Schema.Array(Scope).pipe(Schema.minItems(1)),
    rate_limit_per_minute: Schema.optionalWith(RateLimitPerMinute, { default: () => 60 }),
    daily_post_cap: Schema.optionalWith(DailyPostCap, { default: () => null })
  }),
  "CreateKeyBody"
)

export const UpdateKeyBody = request(
  Schema.Struct({
    rate_limit_per_minute: Schema.optional(RateLimitPerMinute).annotations({
      description: "Requests per minute; applies from the key's next request."
    }),
    daily_post_cap: Schema.optional(DailyPostCap).annotations({
      description: "Posts a day; null removes the key's own cap (the project's default then applies)."
    })
  }),
  "UpdateKeyBody"
)

export class AdminKeysGroup extends HttpApiGroup.make("keys")
  .add(
    HttpApiEndpoint.get("list", "/projects/:project_id/keys")
      .setPath(projectPath)
      .addSuccess(Schema.Struct({ data: Schema.Array(AdminApiKey) }).annotations({ identifier: "AdminApiKeyList" }))
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "List a project's API keys (never the keys themselves)")
  )
  .add(
    HttpApiEndpoint.post("create", "/projects/:project_id/keys")
      .setPath(projectPath)
      .setPayload(CreateKeyBody)
      .addSuccess(CreatedKey, { status: 201 })
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "Create an API key; the reply carries the key once")
  )
  .add(
    HttpApiEndpoint.post("revoke", "/projects/:project_id/keys/:key_id/revoke")
      .setPath(Schema.Struct({ project_id: ProjectId, key_id: ApiKeyId }))
      .addSuccess(AdminApiKey)
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "Revoke an API key (it answers 401 from then on)")
  )
  .add(
    HttpApiEndpoint.patch("update", "/projects/:project_id/keys/:key_id")
      .setPath(Schema.Struct({ project_id: ProjectId, key_id: ApiKeyId }))
      .setPayload(UpdateKeyBody)
      .addSuccess(AdminApiKey)
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "Edit an API key's rate limit and daily post cap; omitted ones are kept; applies at once")
  )
{}

// ---------------------------------------------------------------------------------------------
// Social accounts
// ---------------------------------------------------------------------------------------------

export const AdminSocialAccount = Schema.Struct({
  id: AccountId,
  project_id: ProjectId,
  platform: Platform,
  username: Schema.String,
  route: ConnectionRoute,
  status: AccountStatus
}).annotations({ identifier: "AdminSocialAccount" })
export type AdminSocialAccount = typeof AdminSocialAccount.Type

/**
 * A secret in a request body (an aggregator's key, an app password): refused with a message that
 * never repeats the value, since a schema's own messages quote what they got.
 */
const secretText = (field: string) => {
  const refused = { message: () => `${field} must be a string of 1 to 300 characters (its value is not repeated)` }
  return Schema.String.annotations(refused).pipe(Schema.minLength(1, refused), Schema.maxLength(300, refused))
}

/** An aggregator's key: a secret held Redacted from decoding on. */
const aggregatorKey = (field: string) => Schema.Redacted(secretText(field))

export const ConnectAccountBody = request(
  Schema.Struct({
    platform: Platform,
    username: Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(100), Schema.pattern(/^@?[^\s@:,|]+$/, {
      message: () => "a username has no spaces and none of @ (except leading), :, comma or |"
    })),
    route: Schema.optionalWith(ConnectionRoute, { default: () => "simulator" as const }).annotations({
      description:
        "simulator (by name), or an aggregator route (instagram: aggregator, aggregator_login) with the aggregator's keys; direct accounts connect through accounts/oauth or accounts/login."
    }),
    api_key: Schema.optional(aggregatorKey("api_key")).annotations({
      description: "Aggregator routes only, required there: the Ayrshare account's API key. Stored encrypted; never logged or echoed."
    }),
    profile_key: Schema.optional(aggregatorKey("profile_key")).annotations({
      description:
        "Aggregator routes only: the Ayrshare user profile's Profile-Key (absent: the API key's primary profile). Stored encrypted; never logged or echoed."
    })
  }).pipe(Schema.filter((body) =>
    body.route === "aggregator" || body.route === "aggregator_login"
      ? body.api_key === undefined
        ? { path: ["api_key"], message: `route ${body.route} is connected with the aggregator's keys: api_key is required` }
        : undefined
      : body.api_key !== undefined || body.profile_key !== undefined
      ? { path: [body.api_key !== undefined ? "api_key" : "profile_key"], message: "keys are taken on the aggregator routes only" }
      : undefined
  )),
  "ConnectAccountBody"
)

export const AccountStatusBody = request(Schema.Struct({ status: AccountStatus }), "AccountStatusBody")

export const StartOAuthBody = request(
  Schema.Struct({
    platform: Platform,
    // Descriptions go on the fields, not their types: a type's description becomes its refusal message.
    identifier: Schema.optional(Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(300))).annotations({
      description:
        "Bluesky only, optional: the handle or DID to connect. Herald finds the account's PDS and its authorization server from it; without it the consent page is the configured entryway's (HERALD_BLUESKY_AUTH_URL)."
    }),
    /** The login to connect through where the platform has more than one (instagram: facebook_login); direct by default. */
    route: Schema.optional(Schema.Literal("direct", "facebook_login"))
  }),
  "StartOAuthBody"
)

export const OAuthStartView = Schema.Struct({
  authorize_url: Schema.String.annotations({ description: "Open it in a browser signed in to the platform account to connect." }),
  expires_at: Timestamp.annotations({ description: "The consent must be given before this instant (10 minutes)." }),
  redirect_uri: Schema.String.annotations({ description: "Herald's callback the platform returns to; register it with the platform's OAuth app." })
}).annotations({ identifier: "AdminOAuthStart" })

export const LoginAccountBody = request(
  Schema.Struct({
    platform: Platform,
    identifier: Schema.propertySignature(Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(300))).annotations({
      description: "The account's handle, email or DID, as the platform's login takes it."
    }),
    password: secretText("password").annotations({
      description: "An app password: sent to the platform once, never stored, logged or echoed."
    })
  }),
  "LoginAccountBody"
)

export class AdminAccountsGroup extends HttpApiGroup.make("accounts")
  .add(
    HttpApiEndpoint.get("list", "/projects/:project_id/accounts")
      .setPath(projectPath)
      .addSuccess(Schema.Struct({ data: Schema.Array(AdminSocialAccount) }).annotations({ identifier: "AdminSocialAccountList" }))
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "List a project's social accounts")
  )
  .add(
    HttpApiEndpoint.post("connect", "/projects/:project_id/accounts")
      .setPath(projectPath)
      .setPayload(ConnectAccountBody)
      .addSuccess(AdminSocialAccount, { status: 201 })
      .addError(AdminNotFound)
      .addError(AdminRefused)
      .annotate(OpenApi.Summary, "Connect a simulator account, or an aggregator account with its keys (direct accounts connect through accounts/oauth or accounts/login)")
  )
  .add(
    HttpApiEndpoint.post("startOAuth", "/projects/:project_id/accounts/oauth")
      .setPath(projectPath)
      .setPayload(StartOAuthBody)
      .addSuccess(OAuthStartView, { status: 201 })
      .addError(AdminNotFound)
      .addError(AdminRefused)
      .annotate(OpenApi.Summary, "Start connecting a direct account: the platform's consent URL to open")
  )
  .add(
    HttpApiEndpoint.post("login", "/projects/:project_id/accounts/login")
      .setPath(projectPath)
      .setPayload(LoginAccountBody)
      .addSuccess(AdminSocialAccount, { status: 201 })
      .addError(AdminNotFound)
      .addError(AdminRefused)
      .annotate(OpenApi.Summary, "Connect (or reconnect) a direct account with an app password (Bluesky)")
  )
  .add(
    HttpApiEndpoint.patch("setStatus", "/projects/:project_id/accounts/:account_id")
      .setPath(Schema.Struct({ project_id: ProjectId, account_id: AccountId }))
      .setPayload(AccountStatusBody)
      .addSuccess(AdminSocialAccount)
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "Set an account's status (active, needs_reconnect, disconnected)")
  )
  .add(
    HttpApiEndpoint.post("retryAuthFailures", "/projects/:project_id/accounts/:account_id/retry-auth-failures")
      .setPath(Schema.Struct({ project_id: ProjectId, account_id: AccountId }))
      .addSuccess(Schema.Struct({ queued: Schema.Int }).annotations({ identifier: "AdminRetryAuthFailures" }))
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "Queue again every delivery of the account that failed auth_expired (after a reconnect); answers how many")
  )
{}

// ---------------------------------------------------------------------------------------------
// Webhook endpoints
// ---------------------------------------------------------------------------------------------

export const AdminWebhookEndpoint = Schema.Struct({
  id: WebhookEndpointId,
  project_id: ProjectId,
  url: Schema.String,
  kinds: Schema.Array(EventKind),
  enabled: Schema.Boolean,
  consecutive_failures: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  created_at: Timestamp
}).annotations({ identifier: "AdminWebhookEndpoint" })
export type AdminWebhookEndpoint = typeof AdminWebhookEndpoint.Type

export const CreatedWebhook = Schema.Struct({
  ...AdminWebhookEndpoint.fields,
  secret: Schema.String.annotations({ description: "The signing secret. Shown once, in this reply only." })
}).annotations({ identifier: "AdminCreatedWebhookEndpoint" })

const HttpsUrl = Schema.Trim.pipe(
  Schema.maxLength(2000),
  Schema.filter((text) => {
    try {
      const url = new URL(text)
      if (url.protocol !== "https:") return "must be an https URL"
      if (url.username !== "" || url.password !== "") return "must not carry credentials"
      return true
    } catch {
      return "must be an absolute https URL"
    }
  }, { identifier: "HttpsUrl" })
)

export const CreateWebhookBody = request(
  Schema.Struct({
    url: HttpsUrl,
    kinds: Schema.propertySignature(Schema.Array(EventKind).pipe(Schema.minItems(1))).annotations({
      description: "The event kinds to receive; a kind added later never arrives unasked."
    })
  }),
  "CreateWebhookBody"
)

export const UpdateWebhookBody = request(WebhookEndpointChange, "UpdateWebhookBody")

export const WebhookTestResult = Schema.Struct({
  event: Schema.Literal(webhookTestKind),
  delivery_id: Schema.UUID.annotations({ description: "Fresh for every test event." }),
  accepted: Schema.Boolean.annotations({ description: "true when the endpoint answered 2xx." }),
  status_code: Schema.NullOr(Schema.Int).annotations({ description: "null when no response came." }),
  latency_ms: Schema.Int,
  response_prefix: Schema.String.annotations({ description: "The first 512 bytes of the reply, as UTF-8." }),
  error: Schema.NullOr(Schema.String).annotations({ description: "Why it was not accepted; null when it was." })
}).annotations({ identifier: "AdminWebhookTestResult" })

export const RotateWebhookSecretBody = request(
  Schema.Struct({
    expires_in_seconds: Schema.optional(
      Schema.Int.pipe(Schema.between(0, Duration.toSeconds(maxSecretOverlap)))
    ).annotations({
      description: "How long the old secret keeps signing alongside the new one, in seconds (0 to 604800, 7 days; " +
        "0 ends it now). Default 86400 (24 h)."
    })
  }),
  "RotateWebhookSecretBody"
)

export const RotatedWebhookSecret = Schema.Struct({
  id: WebhookEndpointId,
  secret: Schema.String.annotations({ description: "The new signing secret. Shown once, in this reply only." }),
  previous_secret_expires_at: Timestamp.annotations({
    description: "Until then each request carries a signature with the old secret and one with the new; after it, only the new."
  })
}).annotations({ identifier: "AdminRotatedWebhookSecret" })

const webhookPath = Schema.Struct({ project_id: ProjectId, webhook_id: WebhookEndpointId })

export class AdminWebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("list", "/projects/:project_id/webhooks")
      .setPath(projectPath)
      .addSuccess(Schema.Struct({ data: Schema.Array(AdminWebhookEndpoint) }).annotations({ identifier: "AdminWebhookEndpointList" }))
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "List a project's webhook endpoints")
  )
  .add(
    HttpApiEndpoint.post("create", "/projects/:project_id/webhooks")
      .setPath(projectPath)
      .setPayload(CreateWebhookBody)
      .addSuccess(CreatedWebhook, { status: 201 })
      .addError(AdminNotFound)
      .addError(AdminRefused)
      .annotate(OpenApi.Summary, "Add a webhook endpoint; the reply carries its signing secret once")
  )
  .add(
    HttpApiEndpoint.patch("update", "/projects/:project_id/webhooks/:webhook_id")
      .setPath(webhookPath)
      .setPayload(UpdateWebhookBody)
      .addSuccess(AdminWebhookEndpoint)
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "Turn an endpoint on or off (on again clears its failure streak) and change its event kinds; omitted fields are kept")
  )
  .add(
    HttpApiEndpoint.post("test", "/projects/:project_id/webhooks/:webhook_id/test")
      .setPath(webhookPath)
      .addSuccess(WebhookTestResult)
      .addError(AdminNotFound)
      .annotate(
        OpenApi.Summary,
        "Send one signed webhook.test event now (enabled or not) and answer what the endpoint replied; not retried, not in the delivery log"
      )
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", "/projects/:project_id/webhooks/:webhook_id/rotate-secret")
      .setPath(webhookPath)
      .setPayload(RotateWebhookSecretBody)
      .addSuccess(RotatedWebhookSecret)
      .addError(AdminNotFound)
      .annotate(
        OpenApi.Summary,
        "Give an endpoint a new signing secret; the reply carries it once, and the old one keeps signing alongside it until previous_secret_expires_at"
      )
  )
  .add(
    HttpApiEndpoint.del("remove", "/projects/:project_id/webhooks/:webhook_id")
      .setPath(webhookPath)
      .addSuccess(Schema.Struct({ id: WebhookEndpointId, deleted: Schema.Literal(true) }).annotations({ identifier: "AdminDeletedWebhookEndpoint" }))
      .addError(AdminNotFound)
      .annotate(OpenApi.Summary, "Delete a webhook endpoint")
  )
{}

export class AdminSpecGroup extends HttpApiGroup.make("adminSpec")
  .add(
    HttpApiEndpoint.get("openapi", "/openapi.json")
      .addSuccess(OpenApiDocument)
      .annotate(OpenApi.Summary, "The OpenAPI 3.1 description of the admin API (public, no token)")
  )
{}

/**
 * The admin API under /admin/v1: what the contract leaves to "the dashboard" (projects, API keys,
 * social accounts, webhook endpoints), guarded by the admin token. Errors answer { error, code }
 * like the public API. HttpApiClient.make(HeraldAdminApi) gives a typed client.
 */
export class HeraldAdminApi extends HttpApi.make("herald-admin")
  .add(AdminProjectsGroup.middleware(AdminUrlGuard).middleware(AdminBodyGuard).middleware(AdminAuthentication))
  .add(AdminKeysGroup.middleware(AdminUrlGuard).middleware(AdminBodyGuard).middleware(AdminAuthentication))
  .add(AdminAccountsGroup.middleware(AdminUrlGuard).middleware(AdminBodyGuard).middleware(AdminAuthentication))
  .add(AdminWebhooksGroup.middleware(AdminUrlGuard).middleware(AdminBodyGuard).middleware(AdminAuthentication))
  .add(AdminWebhookDeliveriesGroup.middleware(AdminUrlGuard).middleware(AdminBodyGuard).middleware(AdminAuthentication))
  .add(AdminPublishingGroup.middleware(AdminUrlGuard).middleware(AdminBodyGuard).middleware(AdminAuthentication))
  .add(AdminApprovalChannelsGroup.middleware(AdminUrlGuard).middleware(AdminBodyGuard).middleware(AdminAuthentication))
  .add(AdminSpecGroup.middleware(AdminUrlGuard))
  .addError(BadRequest)
  .addError(InternalError)
  .prefix("/admin/v1")
  .annotateContext(OpenApi.annotations({
    title: "Herald admin API",
    version: "1.0",
    description: "Projects, API keys, social accounts and webhook endpoints of a Herald instance. " +
      "Every operation except this document needs the admin token. Errors answer { error, code }.",
    license: { name: "MIT", url: "https://opensource.org/license/mit" },
    servers: [{ url: "/", description: "This Herald instance" }],
    transform: finishAdminDocument
  }))
{}
