import { Config, Option, type Redacted } from "effect"

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
}

export const heraldConfig: Config.Config<HeraldConfig> = Config.all({
  env: HeraldEnv,
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  // 0 asks the system for a free port (tests); the address actually bound is printed at start.
  port: Config.integer("PORT").pipe(
    Config.validate({ message: "PORT must be 0 (any free port) to 65535", validation: (port) => port >= 0 && port <= 65535 }),
    Config.withDefault(8080)
  ),
  publicUrl: Config.option(Config.url("HERALD_PUBLIC_URL").pipe(Config.map((url) => url.href.replace(/\/+$/, "")))),
  dataDir: Config.string("HERALD_DATA_DIR").pipe(Config.withDefault("./.herald")),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  credentialsKey: Config.option(Config.redacted("HERALD_CREDENTIALS_KEY")),
  approvalSecret: Config.option(Config.redacted("HERALD_APPROVAL_SECRET")),
  simulatorUrl: Config.option(Config.url("HERALD_SIMULATOR_URL").pipe(Config.map((url) => url.href.replace(/\/+$/, ""))))
})
