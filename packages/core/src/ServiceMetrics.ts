import { Metric, MetricBoundaries } from "effect"

/**
 * The service's own instruments (docs/operations.md lists each): counted where the event happens,
 * read through Effect's metric registry by the Prometheus page. What is measured at scrape time
 * from the database (backlog, lateness, outbox depth, heartbeat ages) is not here: it is a query,
 * not a count.
 */

/** HTTP requests answered, by method, route pattern and status. */
export const httpRequests = Metric.counter("herald_http_requests_total", {
  description: "HTTP requests answered, by method, route pattern and status.",
  incremental: true
})

/** How long each HTTP request took, in seconds, by method, route pattern and status. */
export const httpRequestDuration = Metric.histogram(
  "herald_http_request_duration_seconds",
  MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  "HTTP request duration in seconds, by method, route pattern and status."
)

/** Claimed deliveries handled, by platform and outcome (published, failed, retrying, ...). */
export const deliveriesHandled = Metric.counter("herald_deliveries_total", {
  description: "Claimed deliveries handled, by platform and outcome.",
  incremental: true
})

/** Requests refused because their key was over its per-minute rate limit, by surface. */
export const rateLimitRefusals = Metric.counter("herald_rate_limit_refusals_total", {
  description: "Requests refused for a key over its per-minute rate limit.",
  incremental: true
})

/** Heartbeats written by the background workers, by worker kind. */
export const workerHeartbeatsWritten = Metric.counter("herald_worker_heartbeats_total", {
  description: "Heartbeats the background workers of this process wrote, by worker kind.",
  incremental: true
})
