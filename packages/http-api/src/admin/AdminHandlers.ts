import { randomBytes } from "node:crypto"
import { HttpApiBuilder, OpenApi } from "@effect/platform"
import {
  AccountAdmin,
  AccountId,
  AccountStore,
  ApiKeyId,
  ApiKeyStore,
  type ApiKeySummary,
  defaultRateLimitPerMinute,
  IdGenerator,
  noGuardrails,
  Project,
  ProjectAdmin,
  ProjectId,
  ProjectStore,
  SocialAccount,
  WebhookDestinations,
  WebhookEndpoint,
  WebhookEndpointId,
  WebhookEndpoints
} from "@herald/core"
import { DateTime, Effect, Option, Redacted } from "effect"
import { displayPrefix, generateApiKey, hashApiKey } from "../ApiKeys.js"
import { BadRequest, NotFound } from "../HttpErrors.js"
import { groupContext } from "../RequestContext.js"
import {
  AdminAuthentication,
  AdminBodyGuard,
  AdminUrlGuard,
  type AccountView,
  HeraldAdminApi,
  type KeyView,
  type ProjectView,
  type WebhookView
} from "./AdminApi.js"

const notFound = (what: "project" | "api_key" | "account" | "webhook_endpoint", id: string) =>
  new NotFound({ error: `${what.replace("_", " ")} ${id} not found${what === "project" ? "" : " in this project"}`, code: `${what}_not_found` })

const projectView = (project: Project): ProjectView => ({
  id: project.id,
  name: project.name,
  timezone: project.timezone,
  approval: project.approval,
  signature: project.signature,
  guardrails: project.guardrails,
  plan: project.plan
})

const iso = (instant: DateTime.Utc | null) => instant === null ? null : DateTime.formatIso(instant)

const keyView = (key: ApiKeySummary): KeyView => ({
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

const accountView = (account: SocialAccount): AccountView => ({
  id: account.id,
  project_id: account.projectId,
  platform: account.platform,
  username: account.username,
  route: account.route,
  status: account.status
})

const webhookView = (endpoint: WebhookEndpoint): WebhookView => ({
  id: endpoint.id,
  project_id: endpoint.projectId,
  url: endpoint.url,
  kinds: endpoint.kinds,
  enabled: endpoint.enabled,
  consecutive_failures: endpoint.consecutiveFailures,
  last_error: endpoint.lastError,
  created_at: DateTime.formatIso(endpoint.createdAt)
})

const newId = Effect.flatMap(IdGenerator, (ids) => ids.uuid)

/** The project, or 404: every nested resource is reached through its project. */
const requireProject = (id: ProjectId) =>
  ProjectStore.pipe(
    Effect.flatMap((store) => store.get(id)),
    Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound("project", id)), onSome: Effect.succeed }))
  )

export const AdminProjectsLive = HttpApiBuilder.group(HeraldAdminApi, "projects", (handlers) =>
  handlers
    .handle("list", () =>
      ProjectAdmin.pipe(Effect.flatMap((admin) => admin.list), Effect.map((projects) => ({ data: projects.map(projectView) }))))
    .handle("create", ({ payload }) =>
      Effect.gen(function*() {
        const project = new Project({
          id: ProjectId.make(yield* newId),
          name: payload.name,
          timezone: payload.timezone,
          approval: payload.approval,
          signature: payload.signature,
          guardrails: { ...noGuardrails, ...payload.guardrails },
          plan: payload.plan
        })
        yield* Effect.flatMap(ProjectAdmin, (admin) => admin.create(project))
        return projectView(project)
      }))
    .handle("get", ({ path }) => Effect.map(requireProject(path.project_id), projectView))
    .handle("update", ({ path, payload }) =>
      Effect.gen(function*() {
        const current = yield* requireProject(path.project_id)
        const { guardrails, ...fields } = payload
        const project = new Project({ ...current, ...fields, guardrails: { ...current.guardrails, ...guardrails } })
        yield* Effect.flatMap(ProjectAdmin, (admin) => admin.update(project)).pipe(
          Effect.catchTag("ProjectNotFound", () => Effect.fail(notFound("project", path.project_id)))
        )
        return projectView(project)
      }))
).pipe(groupContext(AdminAuthentication, AdminBodyGuard, AdminUrlGuard, ProjectAdmin, ProjectStore, IdGenerator))

const listKeys = (projectId: ProjectId) => Effect.flatMap(ApiKeyStore, (store) => store.list(projectId))

export const AdminKeysLive = HttpApiBuilder.group(HeraldAdminApi, "keys", (handlers) =>
  handlers
    .handle("list", ({ path }) =>
      requireProject(path.project_id).pipe(
        Effect.zipRight(listKeys(path.project_id)),
        Effect.map((keys) => ({ data: keys.map(keyView) }))
      ))
    .handle("create", ({ path, payload }) =>
      Effect.gen(function*() {
        yield* requireProject(path.project_id)
        const key = generateApiKey(payload.kind)
        const summary = yield* Effect.flatMap(ApiKeyStore, (store) =>
          Effect.flatMap(newId, (id) =>
            Effect.flatMap(DateTime.now, (now) =>
              store.create({
                id: ApiKeyId.make(id),
                projectId: path.project_id,
                name: payload.name,
                hash: hashApiKey(key),
                prefix: displayPrefix(key),
                kind: payload.kind,
                scopes: [...new Set(payload.scopes)],
                rateLimitPerMinute: payload.rate_limit_per_minute ?? defaultRateLimitPerMinute,
                dailyPostCap: payload.daily_post_cap,
                createdAt: now
              }))))
        return { ...keyView(summary), key }
      }))
    .handle("revoke", ({ path }) =>
      Effect.gen(function*() {
        yield* requireProject(path.project_id)
        const now = yield* DateTime.now
        yield* Effect.flatMap(ApiKeyStore, (store) => store.revoke(path.project_id, path.key_id, now)).pipe(
          Effect.catchTag("ApiKeyNotFound", () => Effect.fail(notFound("api_key", path.key_id)))
        )
        const keys = yield* listKeys(path.project_id)
        const revoked = keys.find((key) => key.id === path.key_id)
        return revoked === undefined ? yield* Effect.dieMessage(`revoked key ${path.key_id} vanished`) : keyView(revoked)
      }))
).pipe(groupContext(AdminAuthentication, AdminBodyGuard, AdminUrlGuard, ApiKeyStore, ProjectStore, IdGenerator))

const findAccount = (projectId: ProjectId, id: AccountId) =>
  AccountStore.pipe(
    Effect.flatMap((store) => store.list(projectId)),
    Effect.flatMap((accounts) => {
      const account = accounts.find((candidate) => candidate.id === id)
      return account === undefined ? Effect.fail(notFound("account", id)) : Effect.succeed(account)
    })
  )

export const AdminAccountsLive = HttpApiBuilder.group(HeraldAdminApi, "accounts", (handlers) =>
  handlers
    .handle("list", ({ path }) =>
      requireProject(path.project_id).pipe(
        Effect.zipRight(Effect.flatMap(AccountStore, (store) => store.list(path.project_id))),
        Effect.map((accounts) => ({ data: accounts.map(accountView) }))
      ))
    .handle("connect", ({ path, payload }) =>
      Effect.gen(function*() {
        yield* requireProject(path.project_id)
        if (payload.route !== "simulator") {
          return yield* Effect.fail(new BadRequest({
            error: `route ${payload.route} cannot be connected yet: only simulator accounts can be connected for now`,
            code: "route_not_supported",
            violations: [{ field: "route", account: null, message: "only simulator is supported for now" }]
          }))
        }
        const account = new SocialAccount({
          id: AccountId.make(yield* newId),
          projectId: path.project_id,
          platform: payload.platform,
          username: payload.username.replace(/^@/, ""),
          route: payload.route,
          status: "active"
        })
        yield* Effect.flatMap(AccountAdmin, (admin) => admin.connect(account, {}))
        return accountView(account)
      }))
    .handle("setStatus", ({ path, payload }) =>
      Effect.gen(function*() {
        const account = yield* findAccount(path.project_id, path.account_id)
        yield* Effect.flatMap(AccountAdmin, (admin) => admin.setStatus(account.id, payload.status)).pipe(
          Effect.catchTag("AccountNotFound", () => Effect.fail(notFound("account", path.account_id)))
        )
        return accountView(new SocialAccount({ ...account, status: payload.status }))
      }))
).pipe(groupContext(AdminAuthentication, AdminBodyGuard, AdminUrlGuard, AccountAdmin, AccountStore, ProjectStore, IdGenerator))

const listWebhooks = (projectId: ProjectId) => Effect.flatMap(WebhookEndpoints, (store) => store.list(projectId))

/** A signing secret: `whsec_` and 256 random bits in base64url. */
const generateWebhookSecret = () => `whsec_${randomBytes(32).toString("base64url")}`

export const AdminWebhooksLive = HttpApiBuilder.group(HeraldAdminApi, "webhooks", (handlers) =>
  handlers
    .handle("list", ({ path }) =>
      requireProject(path.project_id).pipe(
        Effect.zipRight(listWebhooks(path.project_id)),
        Effect.map((endpoints) => ({ data: endpoints.map(webhookView) }))
      ))
    .handle("create", ({ path, payload }) =>
      Effect.gen(function*() {
        yield* requireProject(path.project_id)
        yield* Effect.flatMap(WebhookDestinations, (destinations) => destinations.check(payload.url)).pipe(
          Effect.catchTag("WebhookDestinationRefused", (refused) =>
            Effect.fail(new BadRequest({
              error: refused.message,
              code: "webhook_url_refused",
              violations: [{ field: "url", account: null, message: refused.reason }]
            })))
        )
        const endpoint = new WebhookEndpoint({
          id: WebhookEndpointId.make(yield* newId),
          projectId: path.project_id,
          url: payload.url,
          kinds: [...new Set(payload.kinds)],
          enabled: true,
          consecutiveFailures: 0,
          lastError: null,
          createdAt: yield* DateTime.now
        })
        const secret = generateWebhookSecret()
        yield* Effect.flatMap(WebhookEndpoints, (store) => store.create(endpoint, Redacted.make(secret)))
        return { ...webhookView(endpoint), secret }
      }))
    .handle("setEnabled", ({ path, payload }) =>
      Effect.gen(function*() {
        yield* requireProject(path.project_id)
        yield* Effect.flatMap(WebhookEndpoints, (store) => store.setEnabled(path.project_id, path.webhook_id, payload.enabled)).pipe(
          Effect.catchTag("WebhookEndpointNotFound", () => Effect.fail(notFound("webhook_endpoint", path.webhook_id)))
        )
        // A DELETE that lands between the update and this read leaves what a later caller gets: 404.
        const endpoint = (yield* listWebhooks(path.project_id)).find((candidate) => candidate.id === path.webhook_id)
        return endpoint === undefined ? yield* Effect.fail(notFound("webhook_endpoint", path.webhook_id)) : webhookView(endpoint)
      }))
    .handle("remove", ({ path }) =>
      Effect.gen(function*() {
        yield* requireProject(path.project_id)
        yield* Effect.flatMap(WebhookEndpoints, (store) => store.remove(path.project_id, path.webhook_id)).pipe(
          Effect.catchTag("WebhookEndpointNotFound", () => Effect.fail(notFound("webhook_endpoint", path.webhook_id)))
        )
        return { id: path.webhook_id, deleted: true as const }
      }))
).pipe(groupContext(AdminAuthentication, AdminBodyGuard, AdminUrlGuard, WebhookEndpoints, WebhookDestinations, ProjectStore, IdGenerator))

export const AdminSpecLive = HttpApiBuilder.group(
  HeraldAdminApi,
  "adminSpec",
  (handlers) => handlers.handle("openapi", () => Effect.sync(() => ({ ...OpenApi.fromApi(HeraldAdminApi) })))
).pipe(groupContext(AdminUrlGuard))
