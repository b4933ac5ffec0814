import type { RouteAdapters } from "@herald/core"
import { Effect, Layer } from "effect"
import { SimulatorPublishers } from "./SimulatorPublisher.js"
import { SimulatorServer, type SimulatorServerOptions } from "./SimulatorServer.js"

/**
 * The simulator started in this process with its client pointed at it: Publishers, MetricsSources,
 * ConnectionProbes and SimulatorServer (for its URL and its record of publishes).
 */
export const inProcess = (options: SimulatorServerOptions = {}, others: ReadonlyArray<RouteAdapters> = []) =>
  Layer.unwrapEffect(Effect.map(SimulatorServer, (server) => SimulatorPublishers.layer({ baseUrl: server.url }, others))).pipe(
    Layer.provideMerge(SimulatorServer.layer(options))
  )
