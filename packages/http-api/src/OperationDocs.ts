import { headerKeySchema, idempotencyHeader } from "./IdempotencyHeader.js"

/**
 * What the OpenAPI documents say of each operation beyond its summary: the operation id a
 * generated client names its method after (HttpApi's `group.endpoint` becomes `postsList` or
 * `posts_list`), a description, and an example of each request body. Keyed by HttpApi's id, in
 * one table per document rather than on the endpoints, which several people edit at once;
 * OpenApiDocument.test.ts checks every operation has an entry and no entry outlives its operation.
 */
export interface OperationDoc {
  readonly id: string
  readonly description: string
  /** Request body examples by content type. */
  readonly examples?: Readonly<Record<string, unknown>>
  /**
   * Request headers the handler reads itself (OpenAPI header parameters): declared on the
   * endpoint, HttpApi's typed client (the SDK) would make every caller pass them.
   */
  readonly headers?: ReadonlyArray<{ readonly name: string; readonly description: string; readonly schema: Readonly<Record<string, unknown>> }>
}

const json = (example: unknown) => ({ "application/json": example })

export const publicOperations: Readonly<Record<string, OperationDoc>> = {
  "posts.list": {
    id: "listPosts",
    description: "The project's posts, newest first, optionally only those in the given statuses. Superseded (edited) posts are left out."
  },
  "posts.get": {
    id: "getPost",
    description: "One post of the project, the same row GET /posts lists for it. An edited post answers 404 post_superseded " +
      "naming the post that replaced it; another project's post or an unknown id answers 404 post_not_found."
  },
  "posts.create": {
    id: "createPost",
    description: "Creates a post for one or more accounts, now or at scheduled_at. An agent key's post waits for a human in copilot " +
      "mode. With an idempotency_key already used the reply is the earlier post (200, repeated: true). The key may come in the " +
      "body or in the Idempotency-Key header; both given, they must be equal (400 otherwise).",
    examples: json({
      caption: "Our spring collection is out.",
      social_accounts: ["x:herald", "linkedin:herald"],
      scheduled_at: "2026-12-01T09:30:00Z",
      idempotency_key: "spring-launch-1"
    }),
    headers: [{
      name: idempotencyHeader,
      description: "The body's idempotency_key, as a header (1 to 255 printable ASCII characters). Sent with an idempotency_key in " +
        "the body, the two must be equal (400 invalid_request naming both otherwise).",
      schema: headerKeySchema
    }]
  },
  "posts.bulk": {
    id: "createPostsInBulk",
    description: "Creates up to 100 posts in one request, as JSON rows, a CSV body or a CSV file upload. Each row succeeds or fails " +
      "on its own; the reply has one result per row. The Idempotency-Key header is refused here (400): each row has its own idempotency_key.",
    examples: {
      "application/json": { rows: [{ caption: "Monday tip", accounts: ["x:herald"], scheduled_at: "2026-12-07T08:00:00Z" }] },
      "text/csv": "caption,accounts,scheduled_at\nMonday tip,x:herald|bluesky:herald,2026-12-07T08:00:00Z\n"
    }
  },
  "posts.edit": {
    id: "editPost",
    description: "Changes a post that has not gone out. The edit is a new post that supersedes the old one (its id is in the reply); " +
      "an approved post goes back to approval when an agent edits it.",
    examples: json({ caption: "Our spring collection is out, with free shipping.", scheduled_at: "2026-12-01T10:00:00Z" })
  },
  "posts.remove": {
    id: "deletePost",
    description: "Deletes a post that never went out, or unschedules a scheduled one. A post already delivered anywhere cannot be deleted."
  },
  "posts.approve": {
    id: "approvePost",
    description: "Approves or rejects a post waiting for approval. Needs a human key with posts:approve; an agent key is refused whatever its scopes.",
    examples: json({ decision: "reject", reason: "Wrong product photo" })
  },
  "deliveries.results": {
    id: "getPostResults",
    description: "The delivery receipt of a post: one row per targeted account with its status, platform URL, attempts and error."
  },
  "deliveries.retry": {
    id: "retryDelivery",
    description: "Queues a failed delivery for another attempt now."
  },
  "deliveries.takedown": {
    id: "takeDownDelivery",
    description: "Deletes a published delivery from its platform. Irreversible; needs a human key."
  },
  "accounts.socialAccounts": {
    id: "listSocialAccounts",
    description: "The project's connected accounts with their status, caption limits, media limits and capabilities."
  },
  "accounts.postingRules": {
    id: "getPostingRules",
    description: "For each account, every platform_configurations key it accepts, with its type and allowed values."
  },
  "accounts.project": {
    id: "getProject",
    description: "The project's settings (time zone, approval mode, signature, guardrails), this key's posts today and whether publishing is paused."
  },
  "accounts.checkGuardrails": {
    id: "checkGuardrails",
    description: "Runs the project's guardrails on a caption and answers the verdict, without creating anything.",
    examples: json({ caption: "Limited offer: 50% off everything this weekend!" })
  },
  "accounts.connectionIssues": {
    id: "listConnectionIssues",
    description: "The open connection-health issues of the project's accounts, each with what to do about it."
  },
  "accounts.checkConnections": {
    id: "checkConnections",
    description: "Checks every account of the project now and answers the open issues with a summary."
  },
  "analytics.metrics": {
    id: "getPostMetrics",
    description: "The engagement numbers of each delivery of a post, as last synced from its platform."
  },
  "analytics.metricsHistory": {
    id: "getPostMetricsHistory",
    description: "The engagement numbers of each delivery of a post over time: a point per sync that changed them, oldest first. " +
      "GET /metrics is the latest of these."
  },
  "analytics.insights": {
    id: "getInsights",
    description: "Engagement totals over a window of days, overall and per platform, with how much of the window has numbers."
  },
  "analytics.topPosts": {
    id: "getTopPosts",
    description: "The window's posts ranked by one metric, best first."
  },
  "analytics.bestTimes": {
    id: "getBestTimes",
    description: "Mean engagement per weekday and UTC hour of publishing, for the project or one account."
  },
  "media.upload": {
    id: "uploadMedia",
    description: "Adds an image or video from a file upload, a public URL Herald fetches, or an uploaded ticket; answers its media id.",
    examples: json({ url: "https://cdn.example.com/spring.jpg", alt_text: "Three jackets on a rack" })
  },
  "media.ticket": {
    id: "createUploadTicket",
    description: "Reserves an upload: answers a URL to send a large file to without the API key, and the ticket to name it by afterwards."
  },
  "media.get": {
    id: "getMedia",
    description: "What is known of a stored file of the project: kind, type read from its bytes, size, width and height, " +
      "duration, alt text, the sender's file name and when it was stored. Another project's id answers media_not_found."
  },
  "media.content": {
    id: "getMediaContent",
    description: "The stored file's bytes with its type, for previews: private caching with an ETag (If-None-Match answers " +
      "304) and one byte range per request (Range answers 206, or 416 outside the file). Another project's id answers media_not_found."
  },
  "mediaAttach.attach": {
    id: "attachUpload",
    description: "Receives the file of an upload ticket. Authorised by the ticket in the path, not an API key."
  },
  "spec.openapi": {
    id: "getOpenApiDocument",
    description: "This OpenAPI 3.1 document. Public: no key needed."
  }
}

const projectExample = {
  name: "Acme",
  timezone: "Europe/Paris",
  approval: "copilot",
  signature: "-- Sent via Acme",
  guardrails: { banned_words: ["guarantee"] }
}

export const adminOperations: Readonly<Record<string, OperationDoc>> = {
  "projects.list": { id: "listProjects", description: "Every project of the instance." },
  "projects.create": {
    id: "createProject",
    description: "Creates a project with its settings; omitted ones take their defaults (UTC, copilot, no signature, no guardrails, plan active).",
    examples: json(projectExample)
  },
  "projects.get": { id: "getProject", description: "One project's settings." },
  "projects.update": {
    id: "updateProject",
    description: "Changes a project's settings; omitted fields and guardrail rules keep their value.",
    examples: json({ signature: "-- Sent via Acme", guardrails: { daily_post_cap: 20 } })
  },
  "projects.checkGuardrails": {
    id: "checkProjectGuardrails",
    description: "A dry run: the verdict a caption would get under the project's guardrails, or under the rules given beside it.",
    examples: json({ caption: "Guaranteed results in a week!", guardrails: { banned_words: ["guaranteed"] } })
  },
  "keys.list": { id: "listApiKeys", description: "A project's API keys, never their secrets." },
  "keys.create": {
    id: "createApiKey",
    description: "Creates an API key. The reply carries the key itself, shown this once; only its hash is kept.",
    examples: json({ kind: "agent", scopes: ["posts:read", "posts:write"], name: "content agent", rate_limit_per_minute: 120 })
  },
  "keys.revoke": { id: "revokeApiKey", description: "Revokes a key: it answers 401 from its next request on." },
  "keys.update": {
    id: "updateApiKeyLimits",
    description: "Changes a key's rate limit or daily post cap, from its next request, in every process.",
    examples: json({ rate_limit_per_minute: 30, daily_post_cap: null })
  },
  "accounts.list": { id: "listAccounts", description: "A project's social accounts." },
  "accounts.connect": {
    id: "connectAccount",
    description:
      "Connects a simulator account by name, or an Instagram account through the aggregator (Ayrshare) with its keys: route aggregator or aggregator_login, api_key and profile_key; Herald asks Ayrshare which account the profile links and refuses another username. Direct accounts are connected through accounts/oauth or accounts/login.",
    examples: json({ platform: "x", username: "acme", route: "simulator" })
  },
  "accounts.startOAuth": {
    id: "startAccountConsent",
    description: "Starts connecting an account through the platform's consent page: answers the URL to open, valid for 10 minutes.",
    examples: json({ platform: "bluesky", identifier: "acme.bsky.social" })
  },
  "accounts.login": {
    id: "loginAccount",
    description: "Connects an account by logging in with an app password (Bluesky). The password is used once and never stored.",
    examples: json({ platform: "bluesky", identifier: "acme.bsky.social", password: "abcd-efgh-ijkl-mnop" })
  },
  "accounts.setStatus": {
    id: "setAccountStatus",
    description: "Sets an account's status; active after needs_reconnect is the reconnect and closes its reconnect issues.",
    examples: json({ status: "active" })
  },
  "accounts.retryAuthFailures": {
    id: "retryAuthFailures",
    description: "Queues again every delivery of the account that failed auth_expired, after a reconnect; answers how many."
  },
  "webhooks.list": { id: "listWebhookEndpoints", description: "A project's webhook endpoints, never their secrets." },
  "webhooks.create": {
    id: "createWebhookEndpoint",
    description: "Adds a webhook endpoint for the given event kinds. The reply carries its signing secret, shown this once.",
    examples: json({ url: "https://hooks.example.com/herald", kinds: ["post.published", "post.failed"] })
  },
  "webhooks.update": {
    id: "updateWebhookEndpoint",
    description: "Turns an endpoint on or off (on again clears its failure streak) and changes the event kinds it receives.",
    examples: json({ enabled: true })
  },
  "webhooks.test": {
    id: "testWebhookEndpoint",
    description: "Sends the endpoint one signed webhook.test event now and answers what it replied."
  },
  "webhooks.rotateSecret": {
    id: "rotateWebhookSecret",
    description: "Gives the endpoint a new signing secret, answered this once. Until previous_secret_expires_at " +
      "(default 24 h, at most 7 days, 0 = now) every request carries a v1 signature with the old secret and one with the new.",
    examples: json({ expires_in_seconds: 3600 })
  },
  "webhooks.remove": { id: "deleteWebhookEndpoint", description: "Deletes a webhook endpoint; its pending events are dropped." },
  "webhookDeliveries.list": { id: "listWebhookDeliveries", description: "An endpoint's delivery attempts, newest first." },
  "webhookDeliveries.resend": { id: "resendWebhookEvent", description: "Queues a given-up event again with its delivery id." },
  "approvalChannels.list": { id: "listApprovalChannels", description: "A project's approval channels." },
  "approvalChannels.create": {
    id: "createApprovalChannel",
    description: "Adds a channel that receives the approval links of held posts: a reviewer's e-mail address or a chat incoming webhook.",
    examples: json({ kind: "email", address: "dana@example.com" })
  },
  "approvalChannels.remove": {
    id: "deleteApprovalChannel",
    description: "Removes an approval channel; messages not yet sent to it are dropped."
  },
  "publishing.list": { id: "listPublishingPauses", description: "The emergency stops in force, the instance's and each project's." },
  "publishing.pauseInstance": {
    id: "pauseInstancePublishing",
    description: "Stops publishing for every project; new posts are still accepted and wait.",
    examples: json({ reason: "Incident review" })
  },
  "publishing.resumeInstance": { id: "resumeInstancePublishing", description: "Lifts the instance's stop; what fell due meanwhile publishes in due order." },
  "publishing.pauseProject": {
    id: "pauseProjectPublishing",
    description: "Stops the project's publishing; new posts are still accepted and wait.",
    examples: json({ reason: "Campaign on hold" })
  },
  "publishing.resumeProject": { id: "resumeProjectPublishing", description: "Lifts the project's stop; what fell due meanwhile publishes in due order." },
  "adminSpec.openapi": { id: "getAdminOpenApiDocument", description: "This OpenAPI 3.1 document. Public: no token needed." }
}

/** The admin document's tags (its groups carry no description of their own). */
export const adminTags: Readonly<Record<string, string>> = {
  projects: "Projects: each has its own keys, accounts, guardrails and webhooks.",
  keys: "API keys: agent or human, with scopes, a rate limit and an optional daily cap.",
  accounts: "Social accounts: connecting them, their status, retrying after a reconnect.",
  webhooks: "Webhook endpoints.",
  webhookDeliveries: "Each webhook endpoint's delivery log and the resend of a given-up event.",
  approvalChannels: "Where held posts' approval links are sent: e-mail or a chat incoming webhook.",
  publishing: "The emergency stop, for a project or the whole instance.",
  adminSpec: "This document."
}
