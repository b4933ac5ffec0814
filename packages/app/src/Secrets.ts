import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Effect, Option, Redacted, Schema } from "effect"
import type { HeraldConfig } from "./Config.js"

/** A secret the deployment must provide itself (production on PostgreSQL). Names the variable, never a value. */
export class MissingSecret extends Schema.TaggedError<MissingSecret>()("MissingSecret", {
  variable: Schema.String
}) {
  override get message(): string {
    return `${this.variable} is not set: in production on PostgreSQL every Herald process must be given the same value ` +
      `(32 random bytes, e.g. \`openssl rand -base64 32\`)`
  }
}

export interface Secrets {
  /** Seals platform credentials and webhook signing secrets at rest. */
  readonly credentialsKey: Redacted.Redacted
  /** Signs approval links. */
  readonly approvalSecret: Redacted.Redacted
}

/** Creates the data directory owner-only (PGlite and the secrets live there). */
export const ensureDataDir = (dataDir: string) =>
  Effect.sync(() => {
    Fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    return Path.resolve(dataDir)
  })

/**
 * The secret in `<data dir>/<file>`, generated (32 random bytes, base64, mode 0600) when absent,
 * so restarts keep it. The exclusive create settles two processes starting at once.
 */
const fileSecret = (dataDir: string, file: string) =>
  Effect.sync(() => {
    const path = Path.join(dataDir, file)
    try {
      Fs.writeFileSync(path, `${randomBytes(32).toString("base64")}\n`, { flag: "wx", mode: 0o600 })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
    return Redacted.make(Fs.readFileSync(path, "utf8").trim())
  })

/** What loading the secrets reads of the configuration. */
export type SecretsConfig = Pick<HeraldConfig, "env" | "dataDir" | "databaseUrl" | "credentialsKey" | "approvalSecret">

const resolve = (config: SecretsConfig, given: Option.Option<Redacted.Redacted>, variable: string, file: string) =>
  Option.match(given, {
    onSome: Effect.succeed,
    onNone: () =>
      Option.isSome(config.databaseUrl) && config.env === "production"
        ? Effect.fail(new MissingSecret({ variable }))
        : Effect.flatMap(ensureDataDir(config.dataDir), (dir) => fileSecret(dir, file))
  })

/** HERALD_CREDENTIALS_KEY when set, otherwise the file credentials.key (as loadSecrets): what `herald migrate` needs. */
export const loadCredentialsKey = (config: SecretsConfig): Effect.Effect<Redacted.Redacted, MissingSecret> =>
  resolve(config, config.credentialsKey, "HERALD_CREDENTIALS_KEY", "credentials.key")

/**
 * HERALD_CREDENTIALS_KEY and HERALD_APPROVAL_SECRET when set; otherwise the files credentials.key
 * and approval.secret in the data directory, generated on first start.
 */
export const loadSecrets = (config: SecretsConfig): Effect.Effect<Secrets, MissingSecret> =>
  Effect.all({
    credentialsKey: loadCredentialsKey(config),
    approvalSecret: resolve(config, config.approvalSecret, "HERALD_APPROVAL_SECRET", "approval.secret")
  })
