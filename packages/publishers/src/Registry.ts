import { ConnectionProbes, MetricsSources, Publishers, type RouteAdapters } from "@herald/core"
import { Layer } from "effect"

/** The Publishers, MetricsSources and ConnectionProbes registries over every route's adapters. */
export const registry = (adapters: ReadonlyArray<RouteAdapters>): Layer.Layer<Publishers | MetricsSources | ConnectionProbes> =>
  Layer.mergeAll(Publishers.layer(adapters), MetricsSources.layer(adapters), ConnectionProbes.layer(adapters))
