import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  HttpServerRequest,
  OpenApi
} from "@effect/platform"
import {
  AccountPostingRules,
  ConnectionIssueAction,
  ConnectionIssueKind,
  ConnectionIssueSeverity,
  AccountListReply,
  BestTimes,
  BestTimesInput,
  BulkBody,
  ContentFormat,
  BulkResult,
  createdPostFields,
  CreatePostBody,
  DecisionBody,
  defaultPostListLimit,
  defaultBestTimesDays,
  defaultInsightsDays,
  defaultTopPostsLimit,
  DeliveryId,
  DeliveryStatus,
  GuardrailSettings,
  PublishingState,
  GuardrailVerdict,
  Insights,
  PatchPostBody,
  Platform,
  PostId,
  PostListReply,
  PostMetricsHistoryReply,
  PostMetricsReply,
  PostRow,
  PostStatus,
  RankingMetric,
  Receipt,
  Timestamp,
  TopPosts
} from "@herald/core"
import { Context, Schema } from "effect"
import {
  AgentCannotApproveError,
  BadRequest,
  DailyCapReachedError,
  DeliveryNotFoundError,
  GuardrailBlockedError,
  IdempotencyKeyReusedError,
  InternalError,
  InvalidCsv,
  MissingScopeError,
  NotEditableError,
  OperatorProjectNotFound,
  PayloadTooLarge,
  PlanInactiveError,
  PostNotFoundError,
  PostSupersededError,
  SessionEndedReply,
  SessionRefused,
  StateConflictError,
  TakedownFailedError,
  TooManyRequests,
  Unauthorized,
  UnsupportedMediaType,
  UnknownOptionError,
  ValidationFailedError
} from "./HttpErrors.js"
import { finishDocument } from "./OpenApiDocument.js"
import { integerFromQuery, queryStruct } from "./RequestPath.js"
import { MediaAttachGroup, MediaGroup } from "./media/MediaApi.js"

/** Request schemas refuse unknown fields and report every invalid field, not just the first. */
const strict = { errors: "all", onExcessProperty: "error" } as const
const request = <S extends Schema.Schema.Any>(schema: S, identifier: string, description: string): S =>
  schema.annotations({ identifier, description, parseOptions: strict }) as S

// ---------------------------------------------------------------------------------------------
// Security and body handling
// ---------------------------------------------------------------------------------------------

/**
 * Bearer API keys: resolves the key to its Principal (then CurrentPrincipal, in RequestPath.ts),
 * counts the request against the key's rate limit and puts X-RateLimit-* on the reply.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Schema.Union(BadRequest, Unauthorized, SessionEndedReply, SessionRefused, OperatorProjectNotFound, TooManyRequests),
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "An API key: Authorization: Bearer hk_agent_... or hk_human_... (the dashboard sends its session cookie instead, docs/dashboard.md). " +
          "Or the admin token (hk_admin_...) with the Herald-Project header naming the project it acts on, as that project's operator (docs/api.md)."
      )
    )
  }
}) {}

/**
 * Reads the body before it is decoded: refuses a Content-Type the endpoint does not accept (415),
 * a body over its size limit (413), bytes that are not UTF-8, JSON that does not parse, nests
 * deeper than 64 levels or holds text that cannot be stored (400, see core/src/StoredText.ts).
 * It provides the request with the checked body in place of the raw one.
 *
 * It is set on the endpoints that take a body, and a group's `.middlewareEndpoints(Authentication)`
 * then adds the key check to each of its endpoints after it: HttpApiBuilder runs an endpoint's
 * middleware last added first, so the key is checked before the body (a request without a key
 * gets its 401 whatever it sends), and a request without a body pays for no guard.
 */
export class RequestBodyGuard extends HttpApiMiddleware.Tag<RequestBodyGuard>()("RequestBodyGuard", {
  failure: Schema.Union(BadRequest, PayloadTooLarge, UnsupportedMediaType),
  provides: HttpServerRequest.HttpServerRequest
}) {}

/**
 * On an endpoint whose use case judges stored text item by item (bulk: a row with a NUL fails on
 * its own, the others go on): RequestBodyGuard then bounds only the body's depth.
 */
export class StoredTextPerItem extends Context.Tag("StoredTextPerItem")<StoredTextPerItem, true>() {}

/**
 * Refuses (400 invalid_request) a query parameter the endpoint does not declare and a path or
 * query value that cannot be stored (core/src/StoredText.ts). Every group of the API has it, so
 * one rule holds on every endpoint, those without a query struct included; it runs after the key
 * check.
 */
export class RequestUrlGuard extends HttpApiMiddleware.Tag<RequestUrlGuard>()("RequestUrlGuard", {
  failure: BadRequest
}) {}

// ---------------------------------------------------------------------------------------------
// Posts
// ---------------------------------------------------------------------------------------------

const StatusFilter = Schema.compose(Schema.split(","), Schema.Array(PostStatus)).annotations({
  description: "One status or a comma-separated list of statuses."
})

/** GET /posts's limit when the query names none (core's). */
export const defaultListLimit = defaultPostListLimit

export const ListPostsParams = queryStruct(
  Schema.Struct({
    status: Schema.optional(StatusFilter),
    // Exact and without a default (the handler applies defaultListLimit): the platform decodes the
    // query on every request, and a default makes the whole struct a transformation, decoded on
    // both sides each time.
    limit: Schema.optionalWith(integerFromQuery(1, 100, defaultListLimit, "How many posts, newest first."), { exact: true })
  })
)

export const PostList = PostListReply.annotations({ identifier: "PostList" })

export const CreatedPost = Schema.Struct({ ...createdPostFields, repeated: Schema.Literal(false) }).annotations({
  identifier: "CreatedPost",
  description: "A new post."
})
export const RepeatedPost = Schema.Struct({ ...createdPostFields, repeated: Schema.Literal(true) }).annotations({
  identifier: "RepeatedPost",
  description: "idempotency_key matched an earlier create: the post it made; nothing new was written."
})

export const BulkCsv = HttpApiSchema.Text({ contentType: "text/csv" }).annotations({
  identifier: "BulkCsv",
  description: "Header caption,accounts[,scheduled_at,media_urls,idempotency_key]; | separates values inside a cell."
})
export const BulkMultipart = HttpApiSchema.Multipart(Schema.Struct({
  file: Schema.String.annotations({ description: "The CSV file.", jsonSchema: { type: "string", format: "binary" } })
})).annotations({ identifier: "BulkMultipart" })

export const EditedPost = Schema.Struct({
  id: Schema.UUID.annotations({ description: "The NEW post's id; the edited one is superseded." }),
  supersedes: Schema.UUID,
  status: PostStatus,
  message: Schema.String,
  approval_url: Schema.optional(Schema.String)
}).annotations({ identifier: "EditedPost" })

export const DeletedPost = Schema.Struct({
  id: Schema.UUID,
  deleted: Schema.Boolean,
  unscheduled: Schema.Boolean,
  status: PostStatus.annotations({ description: "The status the post is left in (for a deleted post, the one it had)." })
}).annotations({ identifier: "DeletedPost" })

export const DecidedPost = Schema.Struct({
  id: Schema.UUID,
  status: PostStatus,
  decision: Schema.Literal("approve", "reject"),
  reason: Schema.NullOr(Schema.String)
}).annotations({ identifier: "DecidedPost" })

const postIdPath = Schema.Struct({ id: PostId })

/**
 * What a change to a post by id (PATCH, DELETE, approve) can answer, beside an endpoint's own
 * refusals: the lifecycle's refusals and the post lookup's. Each member keeps its own status.
 */
const PostChangeRefused = Schema.Union(
  NotEditableError,
  MissingScopeError,
  AgentCannotApproveError,
  PostNotFoundError,
  PostSupersededError,
  StateConflictError
)

export class PostsGroup extends HttpApiGroup.make("posts")
  .add(
    HttpApiEndpoint.get("list", "/posts")
      .setUrlParams(ListPostsParams)
      .addSuccess(PostList)
      .addError(MissingScopeError)
      .annotate(OpenApi.Summary, "List posts, newest first")
  )
  .add(
    HttpApiEndpoint.get("get", "/posts/:id")
      .setPath(postIdPath)
      .addSuccess(PostRow)
      .addError(MissingScopeError)
      .addError(PostNotFoundError)
      .addError(PostSupersededError)
      .annotate(OpenApi.Summary, "Read one post (the row GET /posts lists for it)")
  )
  .add(
    HttpApiEndpoint.post("create", "/posts")
      .setPayload(request(CreatePostBody, "CreatePostBody", "A post to create."))
      .addSuccess(CreatedPost, { status: 201 })
      .addSuccess(RepeatedPost)
      .addError(ValidationFailedError)
      .addError(UnknownOptionError)
      .addError(IdempotencyKeyReusedError)
      .addError(MissingScopeError)
      .addError(PlanInactiveError)
      .addError(GuardrailBlockedError)
      .addError(DailyCapReachedError)
      .middleware(RequestBodyGuard)
      .annotate(OpenApi.Summary, "Create a post")
  )
  .add(
    HttpApiEndpoint.post("bulk", "/posts/bulk")
      .setPayload(Schema.Union(request(BulkBody, "BulkBody", "1 to 100 rows."), BulkCsv, BulkMultipart))
      .addSuccess(BulkResult)
      .addError(InvalidCsv)
      .addError(MissingScopeError)
      .middleware(RequestBodyGuard)
      .annotate(StoredTextPerItem, true)
      .annotate(OpenApi.Summary, "Create up to 100 posts (JSON, raw CSV or multipart CSV)")
  )
  .add(
    HttpApiEndpoint.patch("edit", "/posts/:id")
      .setPath(postIdPath)
      .setPayload(request(PatchPostBody, "PatchPostBody", "Fields to change; omitted fields are kept."))
      .addSuccess(EditedPost)
      .addError(ValidationFailedError)
      .addError(UnknownOptionError)
      .addError(PostChangeRefused)
      .addError(GuardrailBlockedError)
      .middleware(RequestBodyGuard)
      .annotate(OpenApi.Summary, "Edit a post that has not gone out (a new post supersedes it)")
  )
  .add(
    HttpApiEndpoint.del("remove", "/posts/:id")
      .setPath(postIdPath)
      .addSuccess(DeletedPost)
      .addError(PostChangeRefused)
      .annotate(OpenApi.Summary, "Delete a post that never went out, or unschedule a scheduled one")
  )
  .add(
    HttpApiEndpoint.post("approve", "/posts/:id/approve")
      .setPath(postIdPath)
      .setPayload(request(DecisionBody, "DecisionBody", "approve or reject, with an optional reason."))
      .addSuccess(DecidedPost)
      .addError(PostChangeRefused)
      .middleware(RequestBodyGuard)
      .annotate(OpenApi.Summary, "Approve or reject a held post (human keys with posts:approve)")
  )
  .middlewareEndpoints(Authentication)
  .annotate(OpenApi.Description, "Create, list, read, edit, delete and approve posts.")
{}

// ---------------------------------------------------------------------------------------------
// Deliveries
// ---------------------------------------------------------------------------------------------

export const RetriedDelivery = Schema.Struct({
  id: Schema.UUID,
  status: DeliveryStatus,
  post_id: Schema.UUID,
  post_status: PostStatus
}).annotations({ identifier: "RetriedDelivery" })

export const TakenDownDelivery = Schema.Struct({
  id: Schema.UUID,
  status: DeliveryStatus,
  post_id: Schema.UUID,
  post_status: PostStatus,
  taken_down_at: Timestamp
}).annotations({ identifier: "TakenDownDelivery" })

const deliveryIdPath = Schema.Struct({ id: DeliveryId })

/** What a change to a delivery by id (retry, takedown) can answer: the lifecycle's refusals and the delivery lookup's. */
const DeliveryChangeRefused = Schema.Union(
  NotEditableError,
  MissingScopeError,
  AgentCannotApproveError,
  DeliveryNotFoundError,
  StateConflictError
)

export class DeliveriesGroup extends HttpApiGroup.make("deliveries")
  .add(
    HttpApiEndpoint.get("results", "/post-results")
      .setUrlParams(queryStruct(Schema.Struct({ post_id: PostId })))
      .addSuccess(Receipt.annotations({ identifier: "Receipt" }))
      .addError(MissingScopeError)
      .addError(PostNotFoundError)
      .addError(PostSupersededError)
      .annotate(OpenApi.Summary, "Delivery receipt of a post, one row per targeted account")
  )
  .add(
    HttpApiEndpoint.post("retry", "/post-results/:id/retry")
      .setPath(deliveryIdPath)
      .addSuccess(RetriedDelivery)
      .addError(DeliveryChangeRefused)
      .annotate(OpenApi.Summary, "Queue a failed delivery again")
  )
  .add(
    HttpApiEndpoint.post("takedown", "/post-results/:id/takedown")
      .setPath(deliveryIdPath)
      .addSuccess(TakenDownDelivery)
      .addError(DeliveryChangeRefused)
      .addError(TakedownFailedError)
      .annotate(OpenApi.Summary, "Remove a delivered post from its platform (irreversible)")
  )
  .middlewareEndpoints(Authentication)
  .annotate(OpenApi.Description, "Delivery receipts (one per targeted account), retry and takedown.")
{}

// ---------------------------------------------------------------------------------------------
// Accounts, project, guardrails
// ---------------------------------------------------------------------------------------------

export const AccountList = AccountListReply.annotations({ identifier: "AccountList" })

export const PostingRulesList = Schema.Struct({
  data: Schema.Array(AccountPostingRules.annotations({ identifier: "AccountPostingRules" }))
}).annotations({ identifier: "PostingRulesList" })

export const PostingRulesParams = queryStruct(
  Schema.Struct({
    account_ids: Schema.optional(Schema.String.annotations({
      description: "Comma-separated account ids or refs (platform:username); omit for every account of the project."
    }))
  })
)

export const PostsToday = Schema.Struct({
  used: Schema.Int.annotations({ description: "Posts this key created today (deleted ones included)." }),
  cap: Schema.NullOr(Schema.Int).annotations({ description: "The key's daily cap (or the project's default); null: none." }),
  remaining: Schema.NullOr(Schema.Int),
  resets_at: Timestamp.annotations({ description: "Start of the project's next day, UTC." })
}).annotations({ identifier: "PostsToday" })

export const ProjectRules = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  timezone: Schema.String,
  approval: Schema.Literal("copilot", "autopilot"),
  signature: Schema.String,
  guardrails: GuardrailSettings.annotations({ identifier: "GuardrailSettings" }),
  posts_today: PostsToday,
  publishing: PublishingState.annotations({
    description: "Whether the project publishes now: an emergency stop (the project's or the instance's) keeps every post, due as it is, until it is lifted."
  })
}).annotations({ identifier: "ProjectRules" })

// The contract leaves the row open; docs/connection-health.md describes it.
export const ConnectionIssueView = Schema.Struct({
  id: Schema.UUID,
  account: Schema.Struct({
    id: Schema.UUID,
    platform: Schema.NullOr(Schema.String),
    username: Schema.NullOr(Schema.String),
    ref: Schema.String
  }),
  kind: ConnectionIssueKind,
  severity: ConnectionIssueSeverity,
  detail: Schema.String,
  action: ConnectionIssueAction.annotations({ identifier: "ConnectionIssueAction" }),
  opened_at: Timestamp,
  last_checked_at: Timestamp,
  resolved_at: Schema.NullOr(Timestamp)
}).annotations({ identifier: "ConnectionIssue" })

export const ConnectionIssueList = Schema.Struct({ data: Schema.Array(ConnectionIssueView) })
  .annotations({ identifier: "ConnectionIssueList" })

export const ConnectionCheckReport = Schema.Struct({
  summary: Schema.Struct({
    checked: Schema.Int,
    healthy: Schema.Int,
    issues: Schema.partial(Schema.Record({ key: ConnectionIssueKind, value: Schema.Int }))
  }).annotations({ identifier: "ConnectionCheckSummary" }),
  data: Schema.Array(ConnectionIssueView)
}).annotations({ identifier: "ConnectionCheckReport" })

export class AccountsGroup extends HttpApiGroup.make("accounts")
  .add(
    HttpApiEndpoint.get("socialAccounts", "/social-accounts")
      .addSuccess(AccountList)
      .addError(MissingScopeError)
      .annotate(OpenApi.Summary, "Connected social accounts with their limits and capabilities")
  )
  .add(
    HttpApiEndpoint.get("postingRules", "/posting-rules")
      .setUrlParams(PostingRulesParams)
      .addSuccess(PostingRulesList)
      .addError(ValidationFailedError)
      .addError(MissingScopeError)
      .annotate(OpenApi.Summary, "Every platform_configurations key each account accepts")
  )
  .add(
    HttpApiEndpoint.get("project", "/project")
      .addSuccess(ProjectRules)
      .addError(MissingScopeError)
      .annotate(OpenApi.Summary, "The project's rules and this key's posts today")
  )
  .add(
    HttpApiEndpoint.post("checkGuardrails", "/guardrails/check")
      .setPayload(request(
        Schema.Struct({ caption: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10000)) }),
        "GuardrailCheckBody",
        "The text to check."
      ))
      .addSuccess(GuardrailVerdict.annotations({ identifier: "GuardrailVerdict" }))
      .addError(MissingScopeError)
      .middleware(RequestBodyGuard)
      .annotate(OpenApi.Summary, "Check a caption against the guardrails without creating a post")
  )
  .add(
    HttpApiEndpoint.get("connectionIssues", "/connection-issues")
      .addSuccess(ConnectionIssueList)
      .addError(MissingScopeError)
      .annotate(OpenApi.Summary, "Open connection-health issues: dead logins, expiring tokens, missing permissions, unreachable accounts")
  )
  .add(
    HttpApiEndpoint.post("checkConnections", "/connection-issues")
      .addSuccess(ConnectionCheckReport)
      .addError(MissingScopeError)
      .annotate(
        OpenApi.Summary,
        "Check the project's accounts now, bypassing the checker's throttle (not the platforms' rate limits); concurrent calls join one check"
      )
  )
  .middlewareEndpoints(Authentication)
  .annotate(OpenApi.Description, "Connected accounts, their posting rules, the project's rules and guardrail checks.")
{}

// ---------------------------------------------------------------------------------------------
// Analytics
// ---------------------------------------------------------------------------------------------

/**
 * An integer query value within [min, max] (core's SinceDays and TopPostsLimit, which the SDK
 * checks), exact and without a default (see ListPostsParams).
 */
const queryInt = (min: number, max: number, fallback: number, description: string) =>
  Schema.optionalWith(integerFromQuery(min, max, fallback, description), { exact: true })

const analyticsFilterFields = (defaultDays: number) => ({
  since_days: queryInt(1, 365, defaultDays, "The window: deliveries published in the last 1 to 365 days."),
  platform: Schema.optionalWith(Platform, { exact: true }).annotations({ description: "Only this platform's deliveries." }),
  format: Schema.optionalWith(ContentFormat, { exact: true }).annotations({
    description: "Only this format: feed (timeline, and platforms without placements), reel or story."
  })
})

export const InsightsParams = queryStruct(Schema.Struct(analyticsFilterFields(defaultInsightsDays)))

export const TopPostsParams = queryStruct(Schema.Struct({
  metric: Schema.optionalWith(RankingMetric, { exact: true }).annotations({ description: "The metric to rank by, default engagement." }),
  ...analyticsFilterFields(defaultInsightsDays),
  limit: queryInt(1, 50, defaultTopPostsLimit, "How many posts.")
}))

export const BestTimesParams = queryStruct(Schema.Struct({
  ...analyticsFilterFields(defaultBestTimesDays),
  account: BestTimesInput.fields.account
}))

export class AnalyticsGroup extends HttpApiGroup.make("analytics")
  .add(
    HttpApiEndpoint.get("metrics", "/metrics")
      .setUrlParams(queryStruct(Schema.Struct({ post_id: PostId })))
      .addSuccess(PostMetricsReply)
      .addError(MissingScopeError)
      .addError(PostNotFoundError)
      .addError(PostSupersededError)
      .annotate(OpenApi.Summary, "Engagement of each delivery of a post (empty data: not synced yet)")
  )
  .add(
    HttpApiEndpoint.get("metricsHistory", "/metrics/history")
      .setUrlParams(queryStruct(Schema.Struct({ post_id: PostId })))
      .addSuccess(PostMetricsHistoryReply)
      .addError(MissingScopeError)
      .addError(PostNotFoundError)
      .addError(PostSupersededError)
      .annotate(OpenApi.Summary, "Engagement of each delivery of a post over time: a point per sync that changed it")
  )
  .add(
    HttpApiEndpoint.get("insights", "/insights")
      .setUrlParams(InsightsParams)
      .addSuccess(Insights)
      .addError(MissingScopeError)
      .annotate(OpenApi.Summary, "Totals of the window, per platform, and how much of it has numbers")
  )
  .add(
    HttpApiEndpoint.get("topPosts", "/top-posts")
      .setUrlParams(TopPostsParams)
      .addSuccess(TopPosts)
      .addError(MissingScopeError)
      .annotate(OpenApi.Summary, "The window's posts ranked by one metric")
  )
  .add(
    HttpApiEndpoint.get("bestTimes", "/best-times")
      .setUrlParams(BestTimesParams)
      .addSuccess(BestTimes)
      .addError(MissingScopeError)
      .addError(ValidationFailedError)
      .annotate(OpenApi.Summary, "Mean engagement per weekday and hour (UTC) of publishing")
  )
  .middlewareEndpoints(Authentication)
  .annotate(OpenApi.Description, "Engagement metrics, synced roughly every 6 hours, and their roll-ups (docs/analytics.md).")
{}

// ---------------------------------------------------------------------------------------------
// The API
// ---------------------------------------------------------------------------------------------

export const OpenApiDocument = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "OpenApiDocument",
  description: "This document (OpenAPI 3.1)."
})

export class SpecGroup extends HttpApiGroup.make("spec")
  .add(
    HttpApiEndpoint.get("openapi", "/openapi.json")
      .addSuccess(OpenApiDocument)
      .annotate(OpenApi.Summary, "The OpenAPI 3.1 description of this API (public, no key)")
  )
  .annotate(OpenApi.Description, "This document.")
{}

/** The public REST API, under /api/v1. HttpApiClient.make(HeraldApi) gives a typed client. */
export class HeraldApi extends HttpApi.make("herald")
  .add(PostsGroup.middleware(RequestUrlGuard))
  .add(DeliveriesGroup.middleware(RequestUrlGuard))
  .add(AccountsGroup.middleware(RequestUrlGuard))
  .add(AnalyticsGroup.middleware(RequestUrlGuard))
  .add(MediaGroup.middleware(RequestUrlGuard).middleware(Authentication))
  .add(MediaAttachGroup.middleware(RequestUrlGuard))
  .add(SpecGroup.middleware(RequestUrlGuard))
  .addError(BadRequest)
  .addError(InternalError)
  .prefix("/api/v1")
  .annotateContext(OpenApi.annotations({
    title: "Herald social posting API",
    version: "1.0",
    description: "Create, schedule, approve and track posts to nine social networks. Errors answer { error, code }.",
    license: { name: "MIT", url: "https://opensource.org/license/mit" },
    servers: [{ url: "/", description: "This Herald instance" }],
    transform: finishDocument
  }))
{}
