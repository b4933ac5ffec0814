import { defaultConnectionCheckPolicy } from "@herald/core"
import { Kit } from "@herald/publishers"
import { Config, ConfigError, Duration, Either, Option, Redacted } from "effect"
import { defaultMetricsSchedule, defaultMetricsSyncOptions, defaultPublishingDispatcherOptions } from "./workers/index.js"

export const HeraldEnv = Config.literal("development", "production")("HERALD_ENV").pipe(Config.withDefault("development" as const))

/**
 * The reference server's settings, from the environment. Secrets left unset are generated into
 * the data directory on first start (see Secrets.ts), except in production on PostgreSQL, where
 * every process must be given the same ones.
 */
export interface HeraldConfig {
  readonly env: "development" | "production"
  readonly host: string
  readonly port: number
  /** Outside address for approval links; default http://localhost:<port>. */
  readonly publicUrl: Option.Option<string>
  readonly dataDir: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly credentialsKey: Option.Option<Redacted.Redacted>
  readonly approvalSecret: Option.Option<Redacted.Redacted>
  /** An external simulator (HERALD_SIMULATOR_URL); none: one runs in this process. */
  readonly simulatorUrl: Option.Option<string>
  /** HERALD_OUTBOUND_ALLOW_LOOPBACK: media fetches and webhooks may reach loopback (refused in production). */
  readonly outboundAllowLoopback: boolean
  /** HERALD_WORKERS: whether `herald serve` also runs the background workers (off: API only). */
  readonly workers: boolean
  /** HERALD_DELIVERIES_IN_FLIGHT: deliveries this process's dispatcher handles at once. */
  readonly deliveriesInFlight: number
  /**
   * HERALD_DELIVERY_TIMEOUT: how long one publish (its uploads, the platform's media processing
   * and the post) or one takedown may take in all before its outcome is unknown.
   */
  readonly deliveryTimeout: Duration.Duration
  /** HERALD_CALL_TIMEOUT_READ, _PUBLISH, _UPLOAD: each direct-route platform call's deadline by its kind. */
  readonly callDeadlines: Kit.Deadlines
  /**
   * HERALD_METRICS_FIRST_SYNC, HERALD_METRICS_EVERY, HERALD_METRICS_FOR: when a delivery's metrics
   * are fetched (first, then how often, until how long after publishing).
   */
  readonly metricsSchedule: { readonly firstAfter: Duration.Duration; readonly every: Duration.Duration; readonly lastAfter: Duration.Duration }
  /** HERALD_METRICS_POLL: how often an idle metrics sync asks for due deliveries. */
  readonly metricsPollInterval: Duration.Duration
  /** The connection checker's throttle (docs/configuration.md, Connection health). */
  readonly connectionChecks: {
    /** HERALD_CONNECTION_CHECK_EVERY: between two probes of a healthy account (default 6 hours). */
    readonly every: Duration.Duration
    /** HERALD_CONNECTION_CHECK_EXPIRING_EVERY: once a token is inside the warning window (default 1 hour). */
    readonly expiringEvery: Duration.Duration
    /** HERALD_CONNECTION_EXPIRY_WARNING: how early an expiring token is reported (default 7 days). */
    readonly warningWindow: Duration.Duration
  }
}

/** An optional variable; set but empty counts as unset (`DATABASE_URL= npm start`). */
export const optional = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

const optionalSecret = (name: string) => optional(name).pipe(Config.map(Option.map((value) => Redacted.make(value))))

const optionalUrl = (name: string) =>
  optional(name).pipe(
    Config.mapOrFail((value) =>
      Option.match(value, {
        onNone: () => Either.right(Option.none()),
        onSome: (text) =>
          URL.canParse(text)
            ? Either.right(Option.some(text.replace(/\/+$/, "")))
            : Either.left(ConfigError.InvalidData([name], `${name} must be an absolute URL, got ${JSON.stringify(text)}`))
      })
    )
  )

/** A duration such as "6 hours" or "90 minutes"; at least a minute, so the checker cannot spin on a platform. */
const positiveDuration = (name: string, fallback: Duration.Duration) =>
  Config.duration(name).pipe(
    Config.validate({
      message: `${name} must be a duration of at least 1 minute, such as "6 hours"`,
      validation: (value) => Duration.greaterThanOrEqualTo(value, Duration.minutes(1))
    }),
    Config.withDefault(fallback)
  )

/** A deadline: a duration of at least a second. */
const deadline = (name: string, fallback: Duration.Duration) =>
  Config.duration(name).pipe(
    Config.validate({
      message: `${name} must be a duration of at least 1 second, such as "30 seconds" or "10 minutes"`,
      validation: (value) => Duration.greaterThanOrEqualTo(value, Duration.seconds(1))
    }),
    Config.withDefault(fallback)
  )

const callDeadlines: Config.Config<Kit.Deadlines> = Config.all({
  read: deadline("HERALD_CALL_TIMEOUT_READ", Kit.deadlines.read),
  publish: deadline("HERALD_CALL_TIMEOUT_PUBLISH", Kit.deadlines.publish),
  upload: deadline("HERALD_CALL_TIMEOUT_UPLOAD", Kit.deadlines.upload)
})

/**
 * The delivery's time limit with the calls' deadlines: a publish with a video makes an upload and
 * a post at least, so a limit below their sum would cut short a publish the calls allow.
 */
const deliveryLimits = Config.all({
  deliveryTimeout: deadline("HERALD_DELIVERY_TIMEOUT", defaultPublishingDispatcherOptions().publishTimeout),
  callDeadlines
}).pipe(
  Config.validate({
    message: "HERALD_DELIVERY_TIMEOUT must be at least HERALD_CALL_TIMEOUT_UPLOAD plus HERALD_CALL_TIMEOUT_PUBLISH (a video's upload and its post)",
    validation: ({ callDeadlines, deliveryTimeout }) =>
      Duration.greaterThanOrEqualTo(deliveryTimeout, Duration.sum(callDeadlines.upload, callDeadlines.publish))
  })
)

const settings = Config.all({
  env: HeraldEnv,
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  // 0 asks the system for a free port (tests); the address actually bound is printed at start.
  port: Config.integer("PORT").pipe(
    Config.validate({ message: "PORT must be 0 (any free port) to 65535", validation: (port) => port >= 0 && port <= 65535 }),
    Config.withDefault(8080)
  ),
  publicUrl: optionalUrl("HERALD_PUBLIC_URL"),
  dataDir: Config.string("HERALD_DATA_DIR").pipe(Config.withDefault("./.herald")),
  databaseUrl: optionalSecret("DATABASE_URL"),
  credentialsKey: optionalSecret("HERALD_CREDENTIALS_KEY"),
  approvalSecret: optionalSecret("HERALD_APPROVAL_SECRET"),
  simulatorUrl: optionalUrl("HERALD_SIMULATOR_URL"),
  outboundAllowLoopback: Config.boolean("HERALD_OUTBOUND_ALLOW_LOOPBACK").pipe(Config.withDefault(false)),
  workers: Config.boolean("HERALD_WORKERS").pipe(Config.withDefault(true)),
  deliveriesInFlight: Config.integer("HERALD_DELIVERIES_IN_FLIGHT").pipe(
    Config.validate({
      message: "HERALD_DELIVERIES_IN_FLIGHT must be 1 to 1024",
      validation: (count) => count >= 1 && count <= 1024
    }),
    Config.withDefault(defaultPublishingDispatcherOptions().concurrency)
  ),
  metricsSchedule: Config.all({
    firstAfter: Config.duration("HERALD_METRICS_FIRST_SYNC").pipe(Config.withDefault(defaultMetricsSchedule.firstAfter)),
    every: Config.duration("HERALD_METRICS_EVERY").pipe(
      Config.validate({ message: "HERALD_METRICS_EVERY must be at least one minute", validation: (every) => Duration.greaterThanOrEqualTo(every, Duration.minutes(1)) }),
      Config.withDefault(defaultMetricsSchedule.every)
    ),
    lastAfter: Config.duration("HERALD_METRICS_FOR").pipe(Config.withDefault(defaultMetricsSchedule.lastAfter))
  }),
  metricsPollInterval: Config.duration("HERALD_METRICS_POLL").pipe(Config.withDefault(defaultMetricsSyncOptions().pollInterval)),
  connectionChecks: Config.all({
    every: positiveDuration("HERALD_CONNECTION_CHECK_EVERY", defaultConnectionCheckPolicy.every),
    expiringEvery: positiveDuration("HERALD_CONNECTION_CHECK_EXPIRING_EVERY", defaultConnectionCheckPolicy.expiringEvery),
    warningWindow: positiveDuration("HERALD_CONNECTION_EXPIRY_WARNING", defaultConnectionCheckPolicy.warningWindow)
  })
})

export const heraldConfig: Config.Config<HeraldConfig> = Config.zipWith(settings, deliveryLimits, (rest, limits) => ({ ...rest, ...limits }))
