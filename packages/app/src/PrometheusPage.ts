import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import { WorkerHeartbeats } from "@herald/core"
import { adminBearer, AdminTokens, errorResponse } from "@herald/http-api"
import { operationalGauges } from "@herald/storage-postgres"
import { DateTime, Effect, Metric, type MetricPair, MetricState, Option } from "effect"

/** Where the Prometheus text page is served (behind the admin token). */
export const prometheusPath = "/metrics"

type Labels = ReadonlyArray<readonly [string, string]>

/** A label value as the text format escapes it (backslash, double quote, newline). */
const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n")

const labelText = (labels: Labels) =>
  labels.length === 0 ? "" : `{${labels.map(([key, value]) => `${key}="${escapeLabel(value)}"`).join(",")}}`

const numberText = (value: number | bigint) =>
  typeof value === "bigint" ? value.toString() : Number.isFinite(value) ? String(value) : value > 0 ? "+Inf" : value < 0 ? "-Inf" : "NaN"

interface Family {
  readonly help: string
  readonly type: "counter" | "gauge" | "histogram"
  readonly lines: Array<string>
}

/** Effect's metric registry in families, by name (counters, gauges and histograms; Herald keeps no others). */
const registryFamilies = (snapshot: ReadonlyArray<MetricPair.MetricPair.Untyped>) => {
  const families = new Map<string, Family>()
  const family = (name: string, help: string | undefined, type: Family["type"]) => {
    const known = families.get(name)
    if (known !== undefined) return known
    const made: Family = { help: help ?? name, type, lines: [] }
    families.set(name, made)
    return made
  }
  for (const { metricKey, metricState } of snapshot) {
    const name = metricKey.name
    const help = Option.getOrUndefined(metricKey.description)
    const labels: Labels = metricKey.tags.map((tag) => [tag.key, tag.value] as const)
    if (MetricState.isCounterState(metricState)) {
      family(name, help, "counter").lines.push(`${name}${labelText(labels)} ${numberText(metricState.count)}`)
    } else if (MetricState.isGaugeState(metricState)) {
      family(name, help, "gauge").lines.push(`${name}${labelText(labels)} ${numberText(metricState.value)}`)
    } else if (MetricState.isHistogramState(metricState)) {
      const lines = family(name, help, "histogram").lines
      for (const [bound, count] of metricState.buckets) {
        lines.push(`${name}_bucket${labelText([...labels, ["le", numberText(bound)]])} ${count}`)
      }
      if (!metricState.buckets.some(([bound]) => bound === Infinity)) {
        lines.push(`${name}_bucket${labelText([...labels, ["le", "+Inf"]])} ${metricState.count}`)
      }
      lines.push(`${name}_sum${labelText(labels)} ${numberText(metricState.sum)}`)
      lines.push(`${name}_count${labelText(labels)} ${metricState.count}`)
    }
  }
  return families
}

/** Gauges read from the database and the heartbeats at scrape time. */
const scrapeFamilies = Effect.gen(function*() {
  const now = yield* DateTime.now
  const gauges = yield* operationalGauges(now)
  const beats = yield* Effect.flatMap(WorkerHeartbeats, (heartbeats) => heartbeats.list)
  const gauge = (help: string, value: number, labels: Labels = []): Family => ({
    help,
    type: "gauge",
    lines: [`{NAME}${labelText(labels)} ${numberText(value)}`]
  })
  return new Map<string, Family>([
    ["herald_deliveries_due", gauge("Deliveries due now and not yet taken by a worker.", gauges.dueDeliveries)],
    ["herald_deliveries_oldest_due_seconds", gauge("How long the most overdue due delivery has waited, in seconds.", gauges.oldestDueSeconds)],
    ["herald_webhook_sends_pending", gauge("Webhook sends not yet delivered nor given up (outbox depth).", gauges.pendingWebhookSends)],
    ["herald_webhook_sends_oldest_due_seconds", gauge("How long the most overdue pending webhook send has waited, in seconds.", gauges.oldestWebhookDueSeconds)],
    ["herald_worker_heartbeat_age_seconds", {
      help: "Seconds since each background worker last ran, by worker and kind.",
      type: "gauge",
      lines: beats.map((beat) =>
        `{NAME}${labelText([["worker", beat.worker], ["kind", beat.kind]])} ${numberText(DateTime.distance(beat.lastRanAt, now) / 1000)}`
      )
    }]
  ])
})

/** The Prometheus text exposition format (version 0.0.4) of the given families. */
export const prometheusText = (families: ReadonlyMap<string, Family>) =>
  [...families].map(([name, family]) =>
    [
      `# HELP ${name} ${family.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`,
      `# TYPE ${name} ${family.type}`,
      ...family.lines.map((line) => line.replace("{NAME}", name))
    ].join("\n")
  ).join("\n") + "\n"

/**
 * GET /metrics (admin token): the process's counters and histograms (docs/operations.md) and the
 * queue gauges read at scrape time. Behind the admin token rather than on a port of its own, so
 * one listener serves everything and a scraper in another container reaches it as it reaches
 * the API (Prometheus sends the token with `authorization.credentials_file`).
 */
export const PrometheusPageLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<AdminTokens | SqlClient.SqlClient | WorkerHeartbeats>()
    const tokens = yield* AdminTokens
    const page = Effect.gen(function*() {
      yield* adminBearer(tokens, yield* HttpServerRequest.HttpServerRequest)
      const families = new Map([...registryFamilies(Metric.unsafeSnapshot()), ...(yield* scrapeFamilies)])
      return HttpServerResponse.text(prometheusText(families), {
        contentType: "text/plain; version=0.0.4; charset=utf-8",
        headers: { "cache-control": "no-store" }
      })
    }).pipe(Effect.catchAll((refused) => Effect.succeed(errorResponse(refused))))
    yield* router.get(prometheusPath, Effect.provide(page, context))
  })
)
