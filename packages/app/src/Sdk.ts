import type { HttpApi } from "@effect/platform"
import type { Classifier } from "@herald/core"
import type { HeraldAdminApi, HeraldApi } from "@herald/http-api"
import {
  AdminApiLive,
  AdminApiRoutes,
  HmacApprovalLinks,
  HttpApiLive,
  HttpApiRoutes,
  SdkAdminAuthenticationLive,
  SdkAuthenticationLive,
  toWebHandler
} from "@herald/http-api"
import type { Kit } from "@herald/publishers"
import { WebhookDispatcher } from "@herald/webhooks"
import { Effect, Exit, Layer, ManagedRuntime, Option, Redacted, Scope } from "effect"
import { bootstrapDemo, type DemoCredentials } from "./Bootstrap.js"
import { directRoutesWith } from "./DirectRoutes.js"
import { engineLayer, httpApiConfig } from "./Engine.js"
import { HealthLive } from "./Health.js"
import { McpRoute } from "./McpRoute.js"
import { Admission, type FetchHandler } from "./sdk/Admission.js"
import { fastifyPlugin, type FastifyLike, type MountOptions, nodeHandler, type NodeHandler } from "./sdk/NodeAdapters.js"
import { heraldClientOver } from "./sdk/RemoteHerald.js"
import type { EffectClient, PromiseClient } from "./sdk/TypedClient.js"
import { loadSecrets } from "./Secrets.js"
import { approvalNotifier, Workers } from "./workers/index.js"

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
  /**
   * The guardrails' classifier, answering the banned_topics and tone rules: your own rule over
   * every outbound text (a Layer of core's Classifier; examples/custom-guardrail). By default the
   * built-in one, or the LLM-backed one when HERALD_CLASSIFIER_URL is set.
   */
  readonly classifier?: Layer.Layer<Classifier>
  /**
   * Publishers of your own, plugged into the registry: each a direct route (publisher, and how its
   * accounts connect) for a platform; one for a platform and route this build has replaces that
   * one (examples/custom-publisher).
   */
  readonly routes?: ReadonlyArray<Kit.DirectRoute>
  /** On an empty database, create the demo project, keys and admin token (see `demoCredentials`). Default false. */
  readonly demo?: boolean
}

/** A running Herald inside another Node service. */
export interface Herald {
  /** The REST API (/api/v1), the approval pages, the admin API (/admin/v1), the MCP connector (/api/mcp) and /health as a fetch handler. */
  readonly handler: FetchHandler
  /** `handler` as a node:http listener, also Connect/Express middleware (see MountOptions for the prefix). */
  readonly node: (options?: MountOptions) => NodeHandler
  /** Express middleware: `app.use(herald.express({ prefix: "/herald" }))`, before any body parser. */
  readonly express: (options?: MountOptions) => NodeHandler
  /** A Fastify plugin: `await app.register(herald.fastify({ prefix: "/herald" }))`. */
  readonly fastify: (options?: MountOptions) => (fastify: FastifyLike) => Promise<void>
  /**
   * The REST API called in process with an API key, typed from HeraldApi: group, then endpoint
   * (`api(key).posts.create({ payload })`), replies as REST's. Scopes, copilot holds and caps apply
   * as on REST; the per-minute rate limit does not; the key's last use is recorded; posts made
   * this way say `surface: "sdk"` in their provenance. Each call rejects with the error class of
   * its code (HeraldErrors.ts: `instanceof PostNotFound`, `code`, `status`, `details`).
   */
  readonly api: (apiKey: string) => PromiseClient<typeof HeraldApi>
  /** The admin API called in process (the embedding service is the operator: no token), typed from HeraldAdminApi. */
  readonly admin: PromiseClient<typeof HeraldAdminApi>
  /** The same two as Effects, failing with the same error classes (`Effect.catchTag("PostNotFound", ...)`). */
  readonly effect: {
    readonly api: (apiKey: string) => EffectClient<typeof HeraldApi>
    readonly admin: EffectClient<typeof HeraldAdminApi>
  }
  /** The demo's credentials when `demo` created them on this start; null otherwise. */
  readonly demoCredentials: DemoCredentials | null
  /**
   * Stops accepting (new requests and calls get 503 shutting_down), lets the requests in flight and
   * the deliveries the workers claimed finish within `deadline` ms (default 10,000), the workers
   * releasing the leases of what they finished; then closes the handler and the database. What
   * is still running at the deadline is interrupted and its leases lapse (docs/sdk.md).
   */
  readonly close: (options?: { readonly deadline?: number }) => Promise<void>
}

/** The in-process client's base URL: its requests never leave the process, so the host is a name only. */
const inProcessUrl = "http://herald.in-process"

const defaultDeadline = 10_000

/**
 * Starts Herald in this process: storage (migrated), the background workers, a fetch-style
 * handler for the REST, approval and admin routes (with node:http, Express and Fastify adapters),
 * and typed clients of both APIs called in process.
 *
 * ```ts
 * const herald = await createHerald({ publicUrl: "http://localhost:3000/herald" })
 * app.use(herald.express({ prefix: "/herald" }))
 * const post = await herald.api(key).posts.create({ payload: { caption: "Hi", social_accounts: ["x:acme"] } })
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
    simulatorUrl: Option.fromNullable(options.simulatorUrl),
    ...(options.classifier === undefined ? {} : { classifier: options.classifier }),
    ...(options.routes === undefined ? {} : { directRoutes: directRoutesWith(options.routes) })
  })
  const apiConfig = httpApiConfig(options.publicUrl, secrets.approvalSecret)
  const services = Layer.mergeAll(engine, HmacApprovalLinks.pipe(Layer.provide(apiConfig)))
  const runtime = ManagedRuntime.make(services)
  // The workers in a scope of their own, closed first on close(): they finish what they claimed
  // while the database is still open.
  const workersScope = await runtime.runPromise(Scope.make())
  await runtime.runPromise(Layer.buildWithMemoMap(
    Layer.mergeAll(Workers, WebhookDispatcher.layer(), approvalNotifier()).pipe(Layer.provide(services)),
    runtime.memoMap,
    workersScope
  ))
  const demo = await runtime.runPromise(options.demo === true ? bootstrapDemo : Effect.succeed(Option.none()))
  // Each handler builds its routes in a memo map of its own, over the services already built: in one
  // map the route layers (their groups, the router) are shared by reference, and the handler built
  // first would lend its authentication to the other (REST unlimited and labelled sdk, or in-process
  // calls rate-limited and labelled rest).
  const built = Layer.succeedContext((await runtime.runtime()).context)
  const webHandler = (routes: Layer.Layer<HttpApi.Api, never, Layer.Layer.Success<typeof engine> | Layer.Layer.Success<typeof apiConfig>>) =>
    toWebHandler(Layer.mergeAll(routes, HealthLive).pipe(Layer.provide(apiConfig), Layer.provide(built)))
  const web = webHandler(Layer.mergeAll(HttpApiLive, AdminApiLive, McpRoute))
  // Reached only through `api` and `admin` below: its keys are counted against no rate limit and
  // its admin routes ask for no token.
  const inProcess = webHandler(Layer.mergeAll(
    HttpApiRoutes.pipe(Layer.provide(SdkAuthenticationLive)),
    AdminApiRoutes.pipe(Layer.provide(SdkAdminAuthenticationLive))
  ))
  const admission = new Admission()
  const handler = admission.guard((request) => web.handler(request))
  const inProcessFetch = admission.guard((request) => inProcess.handler(request))
  const fetch: typeof globalThis.fetch = (input, init) => inProcessFetch(new Request(input, init))
  const clientOf = (apiKey: string | undefined) => heraldClientOver(inProcessUrl, fetch, { api: apiKey })
  const operator = clientOf(undefined)
  const drain = async (deadline: number) => {
    const started = Date.now()
    await admission.close(deadline)
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([
      runtime.runPromise(Scope.close(workersScope, Exit.void)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(deadline - (Date.now() - started), 0))))
    ])
    clearTimeout(timer)
    await web.dispose()
    await inProcess.dispose()
    await runtime.dispose()
  }
  // Once: a second close() waits for the first.
  let closed: Promise<void> | undefined
  return {
    handler,
    node: (mount) => nodeHandler(handler, mount),
    express: (mount) => nodeHandler(handler, mount),
    fastify: (mount) => fastifyPlugin(handler, mount),
    api: (apiKey) => clientOf(apiKey).api,
    admin: operator.admin,
    effect: { api: (apiKey) => clientOf(apiKey).effect.api, admin: operator.effect.admin },
    demoCredentials: Option.getOrNull(demo),
    close: ({ deadline = defaultDeadline } = {}) => (closed ??= drain(deadline))
  }
}
