import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import {
  AdminApiLive,
  ApiReferenceLive,
  createNodeServer,
  DashboardAssetsLive,
  DashboardSessionLive,
  HmacApprovalLinks,
  HttpApiConfig,
  HttpApiLive,
  serveApi
} from "@herald/http-api"
import { PostgresDashboardSessions } from "@herald/storage-postgres"
import type { RetryPolicy } from "@herald/core"
import { WebhookDispatcher } from "@herald/webhooks"
import { Console, Duration, Effect, Layer, Option } from "effect"
import { bootstrapDemo, type DemoCredentials, writeCredentials } from "./Bootstrap.js"
import { type HeraldConfig, heraldConfig } from "./Config.js"
import { dashboardDir } from "./DashboardBuild.js"
import { engineLayer, type EngineOptions, httpApiConfig } from "./Engine.js"
import { drainDelay, DrainingLive, drainOnStop, healthRoutes } from "./Health.js"
import { loggingLayer, logSettings } from "./Logging.js"
import { McpRoute } from "./McpRoute.js"
import { PrometheusPageLive } from "./PrometheusPage.js"
import { telemetryLayer, telemetrySettings } from "./Telemetry.js"
import { approvalNotifier, workers } from "./workers/index.js"
import { loadSecrets, type Secrets } from "./Secrets.js"

/** Where the server is reached from outside: HERALD_PUBLIC_URL, or the address it bound. */
const baseUrlOf = (config: HeraldConfig, address: HttpServer.Address) =>
  Option.getOrElse(config.publicUrl, () =>
    address._tag === "TcpAddress"
      ? `http://${["0.0.0.0", "::", "127.0.0.1", "::1"].includes(address.hostname) ? "localhost" : address.hostname}:${address.port}`
      : "http://localhost")

const printCredentials = (file: string, credentials: DemoCredentials) =>
  Console.log([
    "",
    "First start: created the Demo project (copilot mode) with one simulator account per platform.",
    "These are shown once; they are also in " + file + " (mode 0600).",
    "",
    `  project_id   ${credentials.project_id}`,
    `  admin_token  ${credentials.admin_token}`,
    `  human_key    ${credentials.human_key}`,
    `  agent_key    ${credentials.agent_key}`,
    ""
  ].join("\n"))

/**
 * The background workers: publishing what is due, syncing metrics, sending webhooks and approval
 * channel messages (whose links start with the configured base URL).
 */
const backgroundWorkers = <R>(
  config: HeraldConfig,
  apiConfig: Layer.Layer<HttpApiConfig, never, R>,
  tuning: { readonly retry?: Partial<RetryPolicy>; readonly dispatchPollInterval?: Duration.Duration; readonly approvalPollInterval?: Duration.Duration } = {}
) =>
  Layer.mergeAll(
    workers({
      ...tuning.retry,
      ...(tuning.dispatchPollInterval === undefined ? {} : { pollInterval: tuning.dispatchPollInterval }),
      concurrency: config.deliveriesInFlight,
      publishTimeout: config.deliveryTimeout
    }, { schedule: config.metricsSchedule, pollInterval: config.metricsPollInterval }, config.connectionChecks),
    WebhookDispatcher.layer(),
    approvalNotifier(tuning.approvalPollInterval === undefined ? {} : { pollInterval: tuning.approvalPollInterval }).pipe(Layer.provide(HmacApprovalLinks), Layer.provide(apiConfig))
  )

/**
 * The reference server: storage, the first-start demo, the REST API with its approval page and
 * reference page (/docs), the admin API, the MCP connector, the dashboard (its built page and its
 * sign-in sessions), the health checks, the Prometheus page and, unless HERALD_WORKERS is false,
 * the background workers, over node:http (provided, to read its address). `drainDelay`: how long
 * it reports not ready once stopping, before it closes.
 */
export const serverLayer = (
  config: HeraldConfig,
  secrets: Secrets,
  options: Pick<EngineOptions, "directRoutes"> & {
    readonly drainDelay?: Duration.Duration
    /** The publishing dispatcher's retry policy in place of the default (tests: a backoff of a second, not of 15). */
    readonly retry?: Partial<RetryPolicy>
    /** Between the publishing dispatcher's polls in place of a second (tests: a retry due sooner goes then, not at the next poll). */
    readonly dispatchPollInterval?: Duration.Duration
    /** Between the approval notifier's passes in place of 5 s (tests: a held post announced at once). */
    readonly approvalPollInterval?: Duration.Duration
  } = {}
) => {
  const engine = engineLayer({ ...config, ...options, credentialsKey: secrets.credentialsKey })
  const firstStart = Layer.effectDiscard(
    Effect.flatMap(bootstrapDemo, Option.match({
      onNone: () => Effect.void,
      onSome: (credentials) =>
        Effect.flatMap(writeCredentials(config.dataDir, credentials), (file) => printCredentials(file, credentials))
    }))
  )
  const apiConfig = Layer.effect(
    HttpApiConfig,
    Effect.map(HttpServer.HttpServer, (server) =>
      HttpApiConfig.of({ baseUrl: baseUrlOf(config, server.address), approvalSecret: secrets.approvalSecret }))
  )
  const http = serveApi.pipe(
    Layer.provide(
      Layer.mergeAll(
        HttpApiLive,
        AdminApiLive,
        healthRoutes,
        McpRoute,
        DashboardSessionLive,
        DashboardAssetsLive(dashboardDir),
        ApiReferenceLive,
        PrometheusPageLive
      ).pipe(Layer.provide(PostgresDashboardSessions))
    ),
    Layer.provide(apiConfig)
  )
  const listening = Layer.effectDiscard(
    Effect.flatMap(HttpServer.HttpServer, (server) =>
      Console.log(`Herald is listening on ${HttpServer.formatAddress(server.address)} (${baseUrlOf(config, server.address)})`))
  )
  // The port is bound before the first start hands out credentials: a start that cannot listen
  // (the port is taken) leaves no Demo project and no credentials.json behind.
  const bound = firstStart.pipe(Layer.provideMerge(NodeHttpServer.layer(createNodeServer, { port: config.port, host: config.host })))
  const serving = drainOnStop(options.drainDelay ?? Duration.zero).pipe(Layer.provide(http), Layer.provide(DrainingLive))
  return Layer.mergeAll(serving, config.workers ? backgroundWorkers(config, apiConfig, options) : Layer.empty, listening).pipe(
    Layer.provideMerge(bound),
    Layer.provide(engine)
  )
}

/** The logger and the OTLP exporters, as the environment sets them (docs/operations.md). */
const observability = Effect.map(
  Effect.all([logSettings, telemetrySettings]),
  ([logs, telemetry]) => Layer.merge(loggingLayer(logs), telemetryLayer(telemetry))
)

/**
 * `herald work`: the background workers alone, no HTTP, on the same database as the API processes
 * (which then run with HERALD_WORKERS=false): the scale-out shape. The embedded store belongs to one
 * process, so this needs DATABASE_URL.
 */
export const work = Effect.gen(function*() {
  const config = yield* heraldConfig
  if (Option.isNone(config.databaseUrl)) {
    return yield* Effect.fail(new Error("herald work runs beside API processes on a shared PostgreSQL: set DATABASE_URL"))
  }
  const secrets = yield* loadSecrets(config)
  yield* Console.log("Herald workers are running (publishing, metrics, webhooks, approval channels)")
  return yield* Layer.launch(
    backgroundWorkers(config, httpApiConfig(Option.getOrElse(config.publicUrl, () => `http://localhost:${config.port}`), secrets.approvalSecret)).pipe(
      Layer.provide(engineLayer({ ...config, credentialsKey: secrets.credentialsKey })),
      Layer.provide(yield* observability)
    )
  )
})

/** `herald serve`: reads the configuration, loads (or generates) the secrets and serves until interrupted. */
export const serve = Effect.gen(function*() {
  const config = yield* heraldConfig
  const secrets = yield* loadSecrets(config)
  return yield* Layer.launch(
    serverLayer(config, secrets, { drainDelay: yield* drainDelay }).pipe(Layer.provide(yield* observability))
  )
})
