import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import {
  AdminApiLive,
  apiKeyPattern,
  createNodeServer,
  DashboardAssetsLive,
  DashboardSessionLive,
  hashApiKey,
  HmacApprovalLinks,
  HttpApiConfig,
  HttpApiLive,
  serveApi
} from "@herald/http-api"
import { McpLive } from "@herald/mcp"
import { WebhookDispatcher } from "@herald/webhooks"
import { Console, Effect, Layer, Option } from "effect"
import { bootstrapDemo, type DemoCredentials, writeCredentials } from "./Bootstrap.js"
import { type HeraldConfig, heraldConfig } from "./Config.js"
import { dashboardDir } from "./DashboardBuild.js"
import { PostgresDashboardSessions } from "./DashboardSessionStore.js"
import { engineLayer, type EngineOptions } from "./Engine.js"
import { HealthLive } from "./Health.js"
import { workers } from "./workers/index.js"
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

/** The MCP connector at /api/mcp, on the REST server's key rule and approval links. */
const mcp = McpLive({
  keyHash: (key) => apiKeyPattern.test(key) ? hashApiKey(key) : null,
  version: "1.0"
}).pipe(Layer.provide(HmacApprovalLinks))

/** The background workers: publishing what is due, syncing metrics, and sending webhooks. */
const backgroundWorkers = (config: HeraldConfig) =>
  Layer.mergeAll(workers({ concurrency: config.deliveriesInFlight, publishTimeout: config.deliveryTimeout }, { schedule: config.metricsSchedule, pollInterval: config.metricsPollInterval }, config.connectionChecks), WebhookDispatcher.layer())

/**
 * The reference server: storage, the first-start demo, the REST API with its approval page, the
 * admin API, the MCP connector, the dashboard (its built page and its sign-in sessions), GET /health and, unless HERALD_WORKERS is false, the background workers, over
 * node:http (provided, to read its address).
 */
export const serverLayer = (config: HeraldConfig, secrets: Secrets, options: Pick<EngineOptions, "directRoutes"> = {}) => {
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
      Layer.mergeAll(HttpApiLive, AdminApiLive, HealthLive, mcp, DashboardSessionLive, DashboardAssetsLive(dashboardDir)).pipe(
        Layer.provide(PostgresDashboardSessions)
      )
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
  return Layer.mergeAll(http, config.workers ? backgroundWorkers(config) : Layer.empty, listening).pipe(
    Layer.provideMerge(bound),
    Layer.provide(engine)
  )
}

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
  yield* Console.log("Herald workers are running (publishing, metrics, webhooks)")
  return yield* Layer.launch(
    backgroundWorkers(config).pipe(Layer.provide(engineLayer({ ...config, credentialsKey: secrets.credentialsKey })))
  )
})

/** `herald serve`: reads the configuration, loads (or generates) the secrets and serves until interrupted. */
export const serve = Effect.gen(function*() {
  const config = yield* heraldConfig
  const secrets = yield* loadSecrets(config)
  return yield* Layer.launch(serverLayer(config, secrets))
})
