import { randomUUID } from "node:crypto"
import { type Classifier, type ConnectionCheckPolicy, ConnectionCheckRuns, defaultConnectionCheckPolicy, IdGenerator, PeopleTagCheck, type RouteAdapters } from "@herald/core"
import { HttpApiConfig, NodeSecretMint } from "@herald/http-api"
import { type MediaConfig, MediaLive } from "@herald/media"
import { OutboundGuard } from "@herald/outbound"
import { Kit, Simulator, SimulatorPublishers } from "@herald/publishers"
import { StorageLive } from "@herald/storage-postgres"
import { WebhookDestinationsLive, WebhookTestEventsLive } from "@herald/webhooks"
import { approvalMessengersFromEnv } from "./approvalChannels/ApprovalMessengersLive.js"
import { Effect, Layer, Option, type Redacted } from "effect"
import { PostgresAdminTokens } from "./AdminTokenStore.js"
import { classifierFromEnv } from "./ClassifierConfig.js"
import { DirectAdapters, directRoutes, directRoutesLayer } from "./DirectRoutes.js"
import { mediaFromEnv } from "./MediaConfig.js"
import { workerName } from "./workers/PublishingDispatcher.js"

/** Fresh v4 UUIDs from node:crypto. */
export const RandomIds = Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) }))

export interface EngineOptions {
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  readonly credentialsKey: Redacted.Redacted
  /** Pool size on PostgreSQL. */
  readonly maxConnections?: number
  /** A simulator already running elsewhere; none: one is started in this process on loopback. */
  readonly simulatorUrl: Option.Option<string>
  /** Media storage; by default from HERALD_MEDIA_DIR / HERALD_S3_* (local <dataDir>/media). */
  readonly media?: MediaConfig
  /** Lets media fetches and webhooks reach loopback http servers (tests, local development only). */
  readonly outboundAllowLoopback?: boolean
  readonly env?: "development" | "production"
  /** How POST /connection-issues probes (its timeouts and leases); the checker worker takes its own. */
  readonly connectionChecks?: Partial<ConnectionCheckPolicy>
  /** The direct routes to serve; by default every one this build has (DirectRoutes.ts). */
  readonly directRoutes?: ReadonlyArray<Kit.DirectRoute>
  /** The guardrails' classifier (banned_topics, tone); by default from HERALD_CLASSIFIER_* (ClassifierConfig.ts). */
  readonly classifier?: Layer.Layer<Classifier>
  /** Each direct-route platform call's deadline by its kind; by default the kit's. */
  readonly callDeadlines?: Kit.Deadlines
}

/**
 * The simulator route's publishers, pointed at HERALD_SIMULATOR_URL or at a simulator started in
 * this process (every process of a deployment then has its own simulated networks).
 */
export const simulatorPublishers = (simulatorUrl: Option.Option<string>, others: ReadonlyArray<RouteAdapters> = []) =>
  Option.match(simulatorUrl, {
    onNone: () => Simulator.inProcess({}, others),
    onSome: (baseUrl) => SimulatorPublishers.layer({ baseUrl }, others)
  })

/**
 * Everything the use cases, the REST and admin APIs and the workers need, without HTTP: storage
 * (migrated), admin tokens, ids, new keys and webhook secrets, the simulator's publishers and the
 * direct routes' (with their account connection and token refresh), the guardrails' classifier
 * (built-in, or LLM-backed through the guard when configured: ClassifierConfig.ts), media (fails to start without ffprobe) with
 * people_tags handles confirmed through each account's publisher, and the outbound guard with the
 * webhook URL check.
 */
export const engineLayer = (options: EngineOptions) => {
  // One guard for every outbound request (media URLs, webhooks); it refuses the loopback
  // allowance in production mode.
  const outbound = OutboundGuard.layer({
    allowLoopback: options.outboundAllowLoopback ?? false,
    production: options.env === "production"
  })
  const media = (options.media === undefined ? mediaFromEnv(options.dataDir) : MediaLive(options.media)).pipe(
    Layer.provide(RandomIds)
  )
  const publishers = Layer.unwrapEffect(
    Effect.map(DirectAdapters, (direct) => simulatorPublishers(options.simulatorUrl, direct))
  )
  return Layer.mergeAll(
    PostgresAdminTokens,
    RandomIds,
    NodeSecretMint,
    WebhookDestinationsLive,
    WebhookTestEventsLive,
    approvalMessengersFromEnv,
    PeopleTagCheck.throughPublishers,
    ConnectionCheckRuns.layer(workerName(), { ...defaultConnectionCheckPolicy, ...options.connectionChecks })
  ).pipe(
    Layer.provideMerge(publishers),
    Layer.provideMerge(directRoutesLayer(options.directRoutes ?? directRoutes).pipe(
      Layer.provide(RandomIds),
      Layer.provide(Layer.succeed(Kit.CallDeadlines, options.callDeadlines ?? Kit.deadlines))
    )),
    Layer.provideMerge(Layer.mergeAll(media, Kit.PlatformHttpLive, options.classifier ?? classifierFromEnv)),
    Layer.provideMerge(outbound),
    Layer.provideMerge(StorageLive.layer(options))
  )
}

/** What the REST layer reads from the configuration: the public base URL and the approval-link secret. */
export const httpApiConfig = (baseUrl: string, approvalSecret: Redacted.Redacted) =>
  Layer.succeed(HttpApiConfig, HttpApiConfig.of({ baseUrl, approvalSecret }))
