import { FetchHttpClient } from "@effect/platform"
import { Config, ConfigError, Duration, Effect, Either, Layer, Option } from "effect"
import { optional } from "./Config.js"

/**
 * Where traces and metrics go over OTLP/HTTP, from the standard OpenTelemetry variables; none
 * when no endpoint is set (the default: the tracer then stays off, at no cost per request).
 */
export interface TelemetrySettings {
  readonly traces: Option.Option<string>
  readonly metrics: Option.Option<string>
  readonly headers: Readonly<Record<string, string>>
  readonly protocol: "http/protobuf" | "http/json"
  readonly serviceName: string
  /** OTEL_BSP_SCHEDULE_DELAY: how often collected spans (and metrics) are sent. */
  readonly exportInterval: Duration.Duration
}

/**
 * `OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT`, used as is; without it, `OTEL_EXPORTER_OTLP_ENDPOINT`
 * with the signal's path (`/v1/traces`, `/v1/metrics`), as the OTLP exporter specification says.
 */
const endpointOf = (signal: "TRACES" | "METRICS") => optional(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`)

/** `key1=value1,key2=value2`, values percent-encoded (the OTLP exporter specification's form). */
const headerList = (name: string) =>
  optional(name).pipe(Config.mapOrFail((text) => {
    const headers: Record<string, string> = {}
    for (const pair of Option.getOrElse(text, () => "").split(",")) {
      if (pair.trim() === "") continue
      const at = pair.indexOf("=")
      if (at <= 0) return Either.left(ConfigError.InvalidData([name], `${name} must be key=value pairs separated by commas`))
      headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim())
    }
    return Either.right(headers)
  }))

export const telemetrySettings: Config.Config<TelemetrySettings> = Config.all({
  disabled: Config.boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
  base: optional("OTEL_EXPORTER_OTLP_ENDPOINT"),
  protocol: Config.literal("http/protobuf", "http/json", "grpc")("OTEL_EXPORTER_OTLP_PROTOCOL").pipe(
    Config.withDefault("http/protobuf" as const),
    Config.validate({
      message: "OTEL_EXPORTER_OTLP_PROTOCOL: Herald exports over HTTP only (http/protobuf or http/json)",
      validation: (protocol) => protocol !== "grpc"
    })
  ),
  headers: headerList("OTEL_EXPORTER_OTLP_HEADERS"),
  serviceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("herald")),
  exportInterval: Config.integer("OTEL_BSP_SCHEDULE_DELAY").pipe(
    Config.validate({ message: "OTEL_BSP_SCHEDULE_DELAY must be a positive number of milliseconds", validation: (ms) => ms > 0 }),
    Config.withDefault(5000),
    Config.map(Duration.millis)
  )
}).pipe(
  Config.zipWith(
    Config.all([endpointOf("TRACES"), endpointOf("METRICS")]),
    ({ base, disabled, ...rest }, [traces, metrics]) => {
      const endpoint = (own: Option.Option<string>, signal: string) =>
        disabled ? Option.none() : Option.orElse(own, () => Option.map(base, (url) => `${url.replace(/\/+$/, "")}/v1/${signal}`))
      return {
        ...rest,
        protocol: rest.protocol as TelemetrySettings["protocol"],
        traces: endpoint(traces, "traces"),
        metrics: endpoint(metrics, "metrics")
      }
    }
  )
)

/**
 * The OTLP exporters the settings ask for, with the tracer turned on when traces are exported
 * (the CLI runs with it off: see bin.ts). The spans are the ones the code takes (`inSpan`,
 * `traced`, the request span of `observeRequests`, @effect/sql's); the metrics are Effect's
 * registry, the same the Prometheus page shows. @effect/opentelemetry is imported only when an
 * endpoint is set: a server that exports nothing never holds its code (bench/README.md, Footprint).
 */
export const telemetryLayer = (settings: TelemetrySettings): Layer.Layer<never> => {
  if (Option.isNone(settings.traces) && Option.isNone(settings.metrics)) return Layer.empty
  const resource = { serviceName: settings.serviceName }
  const common = { headers: settings.headers, resource, exportInterval: settings.exportInterval }
  return Layer.unwrapEffect(Effect.map(Effect.promise(() => import("@effect/opentelemetry")), ({ OtlpMetrics, OtlpSerialization, OtlpTracer }) => {
    const traces = Option.match(settings.traces, {
      onNone: () => Layer.empty,
      onSome: (url) => Layer.merge(OtlpTracer.layer({ ...common, url }), Layer.setTracerEnabled(true))
    })
    const metrics = Option.match(settings.metrics, {
      onNone: () => Layer.empty,
      onSome: (url) => OtlpMetrics.layer({ ...common, url })
    })
    return Layer.merge(traces, metrics).pipe(
      Layer.provide(FetchHttpClient.layer),
      Layer.provide(settings.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf)
    )
  }))
}
