import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import { AccountId, ConnectionProbes, MetricsSources, ProjectId, Publishers, type PublishRequest, type RouteAdapters, SocialAccount } from "../src/index.js"
import { RecordingPublisher } from "../src/memory/index.js"

const account = (route: SocialAccount["route"], platform: SocialAccount["platform"] = "x") =>
  new SocialAccount({
    id: AccountId.make("00000000-0000-4000-8000-000000000001"),
    projectId: ProjectId.make("00000000-0000-4000-8000-000000000002"),
    platform,
    username: "acme",
    route,
    status: "active"
  })

const request = (to: SocialAccount): PublishRequest => ({ account: to, text: "Hello", media: [], configuration: undefined, marker: "1" })

const publisher = new RecordingPublisher()
const adapters: ReadonlyArray<RouteAdapters> = [
  { platform: "x", route: "simulator", publisher, metrics: null, probe: null },
  { platform: "x", route: "aggregator", publisher, metrics: null, probe: null }
]
const registries = Layer.mergeAll(Publishers.layer(adapters), MetricsSources.layer(adapters), ConnectionProbes.layer(adapters))

describe("the registries keyed by (platform, route)", () => {
  it.effect("an account gets its route's publisher; any other route is refused, naming the routes that are served", () =>
    Effect.gen(function*() {
      const publishers = yield* Publishers
      expect(publishers.forAccount(account("simulator"))).toBe(publisher)
      const unserved = publishers.forAccount(account("direct"))
      const refused = yield* Effect.flip(unserved.publish(request(account("direct"))))
      expect(refused).toMatchObject({
        transient: false,
        error: { category: "permission_missing", code: "route_unavailable", message: expect.stringContaining("connect it through the simulator or aggregator route") }
      })
      // The look-up is refused alike (a later build may serve the route); there is nothing to take down.
      expect(yield* Effect.flip(unserved.reconcile!(request(account("direct"))))).toEqual(refused)
      expect(unserved.takedown).toBeUndefined()
      const elsewhere = yield* Effect.flip(publishers.forAccount(account("simulator", "bluesky")).publish(request(account("simulator", "bluesky"))))
      expect(elsewhere).toMatchObject({ error: { message: expect.stringContaining("this build publishes to no bluesky route") } })
    }).pipe(Effect.provide(registries)))

  it.effect("a route registered without metrics or a probe has neither", () =>
    Effect.gen(function*() {
      expect(Option.isNone((yield* MetricsSources).forAccount(account("simulator")))).toBe(true)
      expect(Option.isNone((yield* ConnectionProbes).forAccount(account("simulator")))).toBe(true)
    }).pipe(Effect.provide(registries)))

  it.effect("two adapters for one (platform, route) are refused when the registry is built", () =>
    Effect.gen(function*() {
      const built = yield* Effect.exit(Layer.build(Publishers.layer([...adapters, adapters[0]!])).pipe(Effect.scoped))
      expect(Exit.isFailure(built)).toBe(true)
      expect(String(Exit.isFailure(built) && built.cause)).toContain("two adapters are registered for x through the simulator route")
    }))
})
