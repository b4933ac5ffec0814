import { HttpApiBuilder, HttpServer } from "@effect/platform"
import {
  ApiKeyId,
  ApiKeyLimits,
  type ApiKeySummary,
  AccountId,
  checkConnectionsNow,
  type CheckReport,
  AnalyticsInput,
  analyticsQueryOf,
  bestTimes,
  type BestTimes,
  BestTimesInput,
  bestTimesRequestOf,
  CreatePostBody,
  createPost,
  decidePost,
  DecisionBody,
  type IssueView,
  listConnectionIssues,
  defaultInsightsDays,
  type Insights,
  insights,
  listPosts,
  loginConnection,
  makeAuthenticator,
  metricsOfPost,
  Platform,
  PostId,
  type PostMetricsReply,
  PostStatus,
  type PostView,
  ProjectId,
  pausePublishing,
  type PauseView,
  PublishingPauses,
  refuseStoredText,
  resumePublishing,
  type ResumeView,
  toPauseView,
  retryAuthFailures,
  updateApiKeyLimits,
  updateWebhookEndpoint,
  sendWebhookTestEvent,
  addApprovalChannel,
  dryRunGuardrails,
  GuardrailSettings,
  type GuardrailVerdict,
  type ApprovalChannel,
  ApprovalChannelId,
  listApprovalChannels,
  NewApprovalChannel,
  removeApprovalChannel,
  type WebhookEndpoint,
  WebhookEndpointChange,
  WebhookEndpointId,
  type WebhookTestResult,
  type SocialAccount,
  startConnection,
  topPosts,
  type TopPosts,
  TopPostsInput,
  topPostsRequestOf
} from "@herald/core"
import { AdminApiLive, hashApiKey, HmacApprovalLinks, HttpApiLive } from "@herald/http-api"
import { Cause, DateTime, Effect, Exit, Layer, ManagedRuntime, Option, Redacted, Schema } from "effect"
import { bootstrapDemo, type DemoCredentials } from "./Bootstrap.js"
import { engineLayer, httpApiConfig } from "./Engine.js"
import { HealthLive } from "./Health.js"
import { approvalNotifier, Workers } from "./workers/index.js"
import { WebhookDispatcher } from "@herald/webhooks"
import { loadSecrets } from "./Secrets.js"

/** Options of createHerald. */
export interface HeraldOptions {
  /** The URL at which `handler` is reached from outside (approval links start with it), e.g. https://example.com/herald. */
  readonly publicUrl: string
  /** A PostgreSQL URL; omitted, Herald runs its embedded database in dataDir. */
  readonly databaseUrl?: string
  /** Where the embedded database and generated secrets live. Default ./.herald. */
  readonly dataDir?: string
  /** 32 bytes (base64 or hex) sealing credentials at rest; omitted, generated into dataDir. */
  readonly credentialsKey?: string
  /** Signs approval links; omitted, generated into dataDir. */
  readonly approvalSecret?: string
  /** A simulator running elsewhere; omitted, one is started in this process on loopback. */
  readonly simulatorUrl?: string
  /** On an empty database, create the demo project, keys and admin token (see `demoCredentials`). Default false. */
  readonly demo?: boolean
}

/** The API key given to an SDK call is missing, unknown or revoked. */
export class InvalidApiKey extends Schema.TaggedError<InvalidApiKey>()("InvalidApiKey", {
  reason: Schema.Literal("invalid", "revoked")
}) {
  override get message(): string {
    return this.reason === "revoked" ? "this API key was revoked" : "invalid API key"
  }
}

/** A post as POST /posts answers it. */
export interface CreatedPost {
  readonly id: string
  readonly status: PostStatus
  readonly message: string
  readonly approval_url: string | null
  readonly repeated: boolean
}

/** A running Herald inside another Node service. */
export interface Herald {
  /** The REST API (/api/v1), the approval pages, the admin API (/admin/v1) and /health as a fetch handler. */
  readonly handler: (request: Request) => Promise<Response>
  /**
   * The post use cases called directly with an API key (scopes, copilot holds and caps apply as on
   * REST; the per-minute rate limit does not). Failures reject with the core's tagged errors
   * (e.g. ValidationFailed, MissingScope, GuardrailBlocked) or InvalidApiKey.
   */
  readonly posts: {
    readonly create: (apiKey: string, body: CreatePostBody) => Promise<CreatedPost>
    readonly list: (
      apiKey: string,
      filter?: { readonly status?: ReadonlyArray<PostStatus>; readonly limit?: number }
    ) => Promise<{ readonly data: ReadonlyArray<PostView> }>
    readonly approve: (
      apiKey: string,
      postId: string,
      decision: DecisionBody
    ) => Promise<{ readonly id: string; readonly status: PostStatus }>
  }
  /**
   * Connecting direct accounts, as the admin API does (the host is the admin: no key). Failures
   * reject with the core's tagged errors (PlatformNotConfigured naming the variables to set,
   * DirectRouteUnavailable, ConnectionMethodMismatch, ConnectionRefused, ProjectNotFound).
   */
  readonly accounts: {
    /**
     * The consent URL to open; the platform returns to `handler`'s /oauth/callback/{platform}, which
     * connects the account. `how` names the account (Bluesky) or the login (Instagram) where needed.
     */
    readonly startOAuth: (
      projectId: string,
      platform: Platform,
      how?: {
        /** Bluesky: the handle or DID to connect (optional). */
        readonly identifier?: string
        /** The login to connect through where there are several (instagram: facebook_login); direct by default. */
        readonly route?: "direct" | "facebook_login"
      }
    ) => Promise<{ readonly authorize_url: string; readonly expires_at: string; readonly redirect_uri: string }>
    /** Connects with an app password (Bluesky); the password is sent to the platform once and never kept. */
    readonly login: (
      projectId: string,
      platform: Platform,
      credentials: { readonly identifier: string; readonly password: string }
    ) => Promise<SocialAccount>
  }
  /**
   * The analytics use cases called directly with an API key, their parameters named and checked as
   * on REST (snake_case, since_days 1-365, limit 1-50; defaults as on REST). Replies are REST's.
   */
  readonly analytics: {
    readonly metrics: (apiKey: string, postId: string) => Promise<PostMetricsReply>
    readonly insights: (apiKey: string, query?: AnalyticsInput) => Promise<Insights>
    readonly topPosts: (apiKey: string, query?: TopPostsInput) => Promise<TopPosts>
    readonly bestTimes: (apiKey: string, query?: BestTimesInput) => Promise<BestTimes>
  }
  /** Connection health, as GET and POST /connection-issues answer it (posts:read). */
  readonly connections: {
    readonly issues: (apiKey: string) => Promise<{ readonly data: ReadonlyArray<IssueView> }>
    /** Probes the key's project's accounts now, bypassing the checker's throttle; joins a check under way. */
    readonly check: (apiKey: string) => Promise<CheckReport>
  }
  /** Operator operations (no API key: the embedding service is the operator), as the admin API has them. */
  readonly admin: {
    /** Queues again every delivery of the account that failed auth_expired (after a reconnect); how many. */
    readonly retryAuthFailures: (projectId: string, accountId: string) => Promise<{ readonly queued: number }>
    /**
     * The emergency stop (docs/emergency-stop.md): no delivery of the project (null: of every
     * project) is handed to a platform until resumePublishing; creates are still accepted. A scope
     * already paused keeps its first pause. Rejects with ProjectNotFound.
     */
    readonly pausePublishing: (projectId: string | null, reason?: string) => Promise<PauseView>
    /** Lifts the stop; what fell due meanwhile publishes in due order. `lifted` is null when nothing was paused. */
    readonly resumePublishing: (projectId: string | null) => Promise<ResumeView>
    /** The emergency stops in force. */
    readonly pauses: () => Promise<ReadonlyArray<PauseView>>
    /**
     * Edits a key's rate limit (1 to 1,000,000 a minute) and daily post cap (null: none of its own)
     * after creation, as PATCH /admin/v1/projects/{id}/keys/{key_id} does; omitted ones are kept.
     * The key's next request, in any process, is counted against the new limit. Rejects with the
     * decoding error naming a bad value, ProjectNotFound or ApiKeyNotFound.
     */
    readonly updateKeyLimits: (projectId: string, keyId: string, limits: ApiKeyLimits) => Promise<ApiKeySummary>
    /**
     * Turns a webhook endpoint on or off (on again, also after failures disabled it, clears its
     * failure streak) and replaces its event kinds, as PATCH /admin/v1/projects/{id}/webhooks/{webhook_id}.
     * Rejects with the decoding error, ProjectNotFound or WebhookEndpointNotFound.
     */
    readonly updateWebhook: (projectId: string, webhookId: string, change: WebhookEndpointChange) => Promise<WebhookEndpoint>
    /** Sends one signed webhook.test event to the endpoint now and answers its reply (not retried, not logged). */
    readonly testWebhook: (projectId: string, webhookId: string) => Promise<WebhookTestResult>
    /**
     * A guardrail dry run: the verdict `caption` would get under the project's guardrails with
     * `guardrails` (not saved) applied over them, as POST /admin/v1/projects/{id}/guardrails/check.
     */
    readonly checkGuardrails: (projectId: string, caption: string, guardrails?: Partial<GuardrailSettings>) => Promise<GuardrailVerdict>
    /** The project's approval channels (docs/approval-channels.md); a chat URL is never shown. */
    readonly approvalChannels: (projectId: string) => Promise<ReadonlyArray<ApprovalChannel>>
    /**
     * Adds a reviewer's address ({ kind: "email", address }) or a chat incoming webhook
     * ({ kind: "chat", url, label }); posts held from then on are announced there. Rejects with the
     * decoding error, ProjectNotFound, WebhookDestinationRefused (the chat URL) or EmailNotConfigured.
     */
    readonly addApprovalChannel: (projectId: string, channel: NewApprovalChannel) => Promise<ApprovalChannel>
    /** Removes a channel; links already sent keep working. Rejects with ProjectNotFound or ApprovalChannelNotFound. */
    readonly removeApprovalChannel: (projectId: string, channelId: string) => Promise<void>
  }
  /** The demo's credentials when `demo` created them on this start; null otherwise. */
  readonly demoCredentials: DemoCredentials | null
  /** Stops the workers and the handler and closes the database. */
  readonly close: () => Promise<void>
}

/**
 * The key's principal through core's authenticator, its failures told as InvalidApiKey (the SDK's
 * own error), marked as come through the SDK (provenance). Identified only: the SDK counts no rate limit.
 */
const principalOf = (apiKey: string) =>
  Effect.flatMap(makeAuthenticator, ({ identify }) => identify(hashApiKey(apiKey.trim()))).pipe(
    Effect.map((principal) => principal.via("sdk")),
    Effect.catchTags({
      ApiKeyUnknown: () => Effect.fail(new InvalidApiKey({ reason: "invalid" })),
      ApiKeyRevoked: () => Effect.fail(new InvalidApiKey({ reason: "revoked" }))
    })
  )

/**
 * An argument checked as REST checks a body: text that cannot be stored (or nesting past the depth
 * limit) fails with ValidationFailed naming the field, from `root` on; then the schema.
 */
const decode = <A, I>(schema: Schema.Schema<A, I>, input: unknown, root: ReadonlyArray<string> = []) =>
  refuseStoredText(input, root).pipe(
    Effect.zipRight(Schema.decodeUnknown(schema)(input, { errors: "all", onExcessProperty: "error" }))
  )

/**
 * Starts Herald in this process: storage (migrated), the background workers, and a fetch-style
 * handler for the REST, approval and admin routes, plus typed post methods.
 *
 * ```ts
 * const herald = await createHerald({ publicUrl: "http://localhost:3000" })
 * server.on("request", ...) // route requests to herald.handler
 * await herald.close()
 * ```
 */
export const createHerald = async (options: HeraldOptions): Promise<Herald> => {
  const redacted = (value: string | undefined) => Option.map(Option.fromNullable(value), Redacted.make)
  const dataDir = options.dataDir ?? "./.herald"
  const secrets = await Effect.runPromise(loadSecrets({
    env: "development",
    dataDir,
    databaseUrl: redacted(options.databaseUrl),
    credentialsKey: redacted(options.credentialsKey),
    approvalSecret: redacted(options.approvalSecret)
  }))
  const engine = engineLayer({
    databaseUrl: redacted(options.databaseUrl),
    dataDir,
    credentialsKey: secrets.credentialsKey,
    simulatorUrl: Option.fromNullable(options.simulatorUrl)
  })
  const apiConfig = httpApiConfig(options.publicUrl, secrets.approvalSecret)
  const services = Layer.mergeAll(engine, HmacApprovalLinks.pipe(Layer.provide(apiConfig)))
  const workers = Layer.mergeAll(Workers, WebhookDispatcher.layer(), approvalNotifier()).pipe(Layer.provide(services))
  const runtime = ManagedRuntime.make(Layer.mergeAll(services, workers))
  const demo = await runtime.runPromise(options.demo === true ? bootstrapDemo : Effect.succeed(Option.none()))
  const web = HttpApiBuilder.toWebHandler(
    Layer.mergeAll(HttpApiLive, AdminApiLive, HealthLive, HttpServer.layerContext).pipe(Layer.provide(apiConfig), Layer.provide(engine)),
    { memoMap: runtime.memoMap }
  )
  // Rejects with the failure itself (a core tagged error, InvalidApiKey), as Herald's doc says,
  // not with runPromise's FiberFailure wrapped around it.
  const run = <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<typeof services>>) =>
    runtime.runPromiseExit(effect).then(Exit.match({ onSuccess: (value) => value, onFailure: (cause) => Promise.reject(Cause.squash(cause)) }))
  return {
    handler: (request) => web.handler(request),
    posts: {
      create: (apiKey, body) =>
        run(Effect.gen(function*() {
          const principal = yield* principalOf(apiKey)
          const created = yield* createPost(principal, yield* decode(CreatePostBody, body))
          return {
            id: created.record.post.id,
            status: created.record.post.status,
            message: created.message,
            approval_url: created.approvalUrl,
            repeated: created.repeated
          }
        })),
      list: (apiKey, filter = {}) =>
        run(Effect.gen(function*() {
          const principal = yield* principalOf(apiKey)
          const statuses = filter.status === undefined ? null : yield* decode(Schema.Array(PostStatus), filter.status, ["status"])
          return yield* listPosts(principal, { statuses, limit: filter.limit ?? 50 })
        })),
      approve: (apiKey, postId, decision) =>
        run(Effect.gen(function*() {
          const principal = yield* principalOf(apiKey)
          const record = yield* decidePost(principal, yield* decode(PostId, postId, ["post_id"]), yield* decode(DecisionBody, decision))
          return { id: record.post.id, status: record.post.status }
        }))
    },
    accounts: {
      startOAuth: (projectId, platform, how = {}) =>
        run(Effect.gen(function*() {
          const started = yield* startConnection(yield* decode(ProjectId, projectId, ["project_id"]), yield* decode(Platform, platform, ["platform"]), {
            caller: "sdk",
            publicUrl: options.publicUrl,
            loginHint: how.identifier
          }, how.route)
          return { authorize_url: started.authorizeUrl, expires_at: DateTime.formatIso(started.expiresAt), redirect_uri: started.redirectUri }
        })),
      login: (projectId, platform, credentials) =>
        run(Effect.gen(function*() {
          return yield* loginConnection(yield* decode(ProjectId, projectId, ["project_id"]), yield* decode(Platform, platform, ["platform"]), {
            identifier: credentials.identifier.trim(),
            password: Redacted.make(credentials.password)
          })
        }))
    },
    analytics: {
      metrics: (apiKey, postId) =>
        run(Effect.gen(function*() {
          const principal = yield* principalOf(apiKey)
          return yield* metricsOfPost(principal, yield* decode(PostId, postId, ["post_id"]))
        })),
      insights: (apiKey, query = {}) =>
        run(Effect.gen(function*() {
          const principal = yield* principalOf(apiKey)
          return yield* insights(principal, analyticsQueryOf(yield* decode(AnalyticsInput, query), defaultInsightsDays))
        })),
      topPosts: (apiKey, query = {}) =>
        run(Effect.gen(function*() {
          const principal = yield* principalOf(apiKey)
          return yield* topPosts(principal, topPostsRequestOf(yield* decode(TopPostsInput, query)))
        })),
      bestTimes: (apiKey, query = {}) =>
        run(Effect.gen(function*() {
          const principal = yield* principalOf(apiKey)
          return yield* bestTimes(principal, bestTimesRequestOf(yield* decode(BestTimesInput, query)))
        }))
    },
    connections: {
      issues: (apiKey) =>
        run(Effect.map(Effect.flatMap(principalOf(apiKey), listConnectionIssues), (data) => ({ data }))),
      check: (apiKey) => run(Effect.flatMap(principalOf(apiKey), checkConnectionsNow))
    },
    admin: {
      retryAuthFailures: (projectId, accountId) =>
        run(Effect.gen(function*() {
          return yield* retryAuthFailures(
            yield* decode(ProjectId, projectId, ["project_id"]),
            yield* decode(AccountId, accountId, ["account_id"])
          )
        })),
      pausePublishing: (projectId, reason) =>
        run(Effect.gen(function*() {
          const scope = projectId === null ? "instance" as const : { project: yield* decode(ProjectId, projectId, ["project_id"]) }
          return toPauseView(yield* pausePublishing(scope, reason?.trim() || null))
        })),
      resumePublishing: (projectId) =>
        run(Effect.gen(function*() {
          return yield* resumePublishing(projectId === null ? "instance" : { project: yield* decode(ProjectId, projectId, ["project_id"]) })
        })),
      pauses: () => run(Effect.map(Effect.flatMap(PublishingPauses, (pauses) => pauses.list), (pauses) => pauses.map(toPauseView))),
      updateKeyLimits: (projectId, keyId, limits) =>
        run(Effect.gen(function*() {
          return yield* updateApiKeyLimits(
            yield* decode(ProjectId, projectId, ["project_id"]),
            yield* decode(ApiKeyId, keyId, ["key_id"]),
            yield* decode(ApiKeyLimits, limits)
          )
        })),
      updateWebhook: (projectId, webhookId, change) =>
        run(Effect.gen(function*() {
          return yield* updateWebhookEndpoint(
            yield* decode(ProjectId, projectId, ["project_id"]),
            yield* decode(WebhookEndpointId, webhookId, ["webhook_id"]),
            yield* decode(WebhookEndpointChange, change)
          )
        })),
      checkGuardrails: (projectId, caption, guardrails = {}) =>
        run(Effect.gen(function*() {
          return yield* dryRunGuardrails(
            yield* decode(ProjectId, projectId, ["project_id"]),
            yield* decode(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10000)), caption, ["caption"]),
            yield* decode(Schema.partial(GuardrailSettings), guardrails, ["guardrails"])
          )
        })),
      approvalChannels: (projectId) =>
        run(Effect.flatMap(decode(ProjectId, projectId, ["project_id"]), listApprovalChannels)),
      addApprovalChannel: (projectId, channel) =>
        run(Effect.gen(function*() {
          return yield* addApprovalChannel(yield* decode(ProjectId, projectId, ["project_id"]), yield* decode(NewApprovalChannel, channel))
        })),
      removeApprovalChannel: (projectId, channelId) =>
        run(Effect.gen(function*() {
          return yield* removeApprovalChannel(
            yield* decode(ProjectId, projectId, ["project_id"]),
            yield* decode(ApprovalChannelId, channelId, ["channel_id"])
          )
        })),
      testWebhook: (projectId, webhookId) =>
        run(Effect.gen(function*() {
          return yield* sendWebhookTestEvent(
            yield* decode(ProjectId, projectId, ["project_id"]),
            yield* decode(WebhookEndpointId, webhookId, ["webhook_id"])
          )
        }))
    },
    demoCredentials: Option.getOrNull(demo),
    close: async () => {
      await web.dispose()
      await runtime.dispose()
    }
  }
}
