import type { Platform } from "@herald/core"
import { Config, ConfigError, Either, Option, Redacted } from "effect"

/**
 * Where one platform's API lives and the OAuth client Herald is registered as there. The base
 * URLs default to the platform's real hosts; pointing them elsewhere plugs in a fake, a sandbox
 * or a regional host.
 */
export interface PlatformEndpoints {
  readonly platform: Platform
  /** The API's base URL, without a trailing slash (HERALD_<PLATFORM>_API_URL). */
  readonly apiBaseUrl: string
  /** The OAuth authorize and token endpoints' base URL, without a trailing slash (HERALD_<PLATFORM>_AUTH_URL). */
  readonly authBaseUrl: string
  /** HERALD_<PLATFORM>_CLIENT_ID; none: OAuth connect is unavailable for this platform. */
  readonly clientId: Option.Option<string>
  /** HERALD_<PLATFORM>_CLIENT_SECRET; none for a public client. */
  readonly clientSecret: Option.Option<Redacted.Redacted<string>>
}

/** The environment variable of one setting of a platform: HERALD_X_CLIENT_ID. */
export const platformVariable = (platform: Platform, setting: "API_URL" | "AUTH_URL" | "CLIENT_ID" | "CLIENT_SECRET") =>
  `HERALD_${platform.toUpperCase()}_${setting}`

const nonEmpty = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

const baseUrl = (name: string, fallback: string) =>
  nonEmpty(name).pipe(
    Config.mapOrFail((value) => {
      const text = Option.getOrElse(value, () => fallback)
      return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)
        ? Either.right(text.replace(/\/+$/, ""))
        : Either.left(ConfigError.InvalidData([name], `${name} must be an absolute http(s) URL, got ${JSON.stringify(text)}`))
    })
  )

/** A platform's endpoints from the environment, with its real hosts as the defaults. */
export const platformEndpoints = (
  platform: Platform,
  defaults: { readonly apiBaseUrl: string; readonly authBaseUrl: string }
): Config.Config<PlatformEndpoints> =>
  Config.all({
    apiBaseUrl: baseUrl(platformVariable(platform, "API_URL"), defaults.apiBaseUrl),
    authBaseUrl: baseUrl(platformVariable(platform, "AUTH_URL"), defaults.authBaseUrl),
    clientId: nonEmpty(platformVariable(platform, "CLIENT_ID")),
    clientSecret: nonEmpty(platformVariable(platform, "CLIENT_SECRET")).pipe(Config.map(Option.map(Redacted.make)))
  }).pipe(Config.map((settings) => ({ platform, ...settings })))

/** The OAuth client of a configured platform, or the variables to set. */
export const oauthClient = (
  endpoints: PlatformEndpoints
): Either.Either<{ readonly clientId: string; readonly clientSecret: Option.Option<Redacted.Redacted<string>> }, ReadonlyArray<string>> =>
  Option.match(endpoints.clientId, {
    onNone: () =>
      Either.left([platformVariable(endpoints.platform, "CLIENT_ID"), platformVariable(endpoints.platform, "CLIENT_SECRET")]),
    onSome: (clientId) => Either.right({ clientId, clientSecret: endpoints.clientSecret })
  })
