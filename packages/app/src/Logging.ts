import { Config, Layer, Logger, LogLevel } from "effect"

/** How log lines are written: one JSON object a line, or Effect's pretty form for a person at a terminal. */
export type LogFormat = "json" | "pretty"

export interface LogSettings {
  /** HERALD_LOG_LEVEL: the least severe level written (trace, debug, info, warning, error, fatal, none). */
  readonly level: LogLevel.LogLevel
  /** HERALD_LOG_FORMAT: json, pretty, or auto (pretty when standard output is a terminal, else json). */
  readonly format: LogFormat
}

const levels: Record<string, LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

export const logSettings: Config.Config<LogSettings> = Config.all({
  level: Config.literal(...(Object.keys(levels) as ["info"]))("HERALD_LOG_LEVEL").pipe(
    Config.withDefault("info" as const),
    Config.map((name) => levels[name]!)
  ),
  format: Config.literal("json", "pretty", "auto")("HERALD_LOG_FORMAT").pipe(
    Config.withDefault("auto" as const),
    Config.map((format): LogFormat => format === "auto" ? (process.stdout.isTTY ? "pretty" : "json") : format)
  )
})

/**
 * Effect's logger in the chosen format and level, in place of its default (logfmt-like lines).
 * JSON lines carry `message`, `logLevel`, `timestamp` (UTC), `annotations` (the structured fields,
 * such as the access log's), `spans`, `fiberId` and `cause` when there is one.
 */
export const loggingLayer = (settings: LogSettings) =>
  Layer.merge(
    settings.format === "json" ? Logger.json : Logger.pretty,
    Logger.minimumLogLevel(settings.level)
  )
