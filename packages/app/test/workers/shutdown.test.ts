import { SqlClient } from "@effect/sql"
import { createPost } from "@herald/core"
import { SimulatorServer } from "@herald/publishers"
import { Duration, Effect, Exit, Layer, ManagedRuntime, Schedule, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { workers } from "../../src/workers/index.js"
import { loadRecord, seed, testOptions, world } from "./fixtures.js"

// Every call takes 500 ms, so the stop lands while one is under way.
const stack = world({ latency: { minMs: 500, maxMs: 500 } })
let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<typeof stack>, unknown>
beforeAll(async () => {
  runtime = ManagedRuntime.make(stack)
  await runtime.runtime()
}, 60_000)
afterAll(() => runtime.dispose())

describe("stopping the dispatcher (SIGTERM closes its scope)", () => {
  it("finishes the call in flight, records its outcome and releases the lease", () =>
    runtime.runPromise(Effect.gen(function*() {
      const { human, project } = yield* seed({ accounts: [["x", "acme"]] })
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(workers(testOptions({ worker: "stopping", publishTimeout: Duration.seconds(5) })), scope)
      const created = yield* createPost(human, { caption: "Going out as we stop", social_accounts: ["x:acme"] })
      const postId = created.record.post.id
      yield* loadRecord(project.id, postId).pipe(
        Effect.filterOrFail((record) => record.deliveries[0]!.status === "publishing", () => "not yet"),
        Effect.retry(Schedule.spaced("20 millis")),
        Effect.timeout("10 seconds")
      )
      yield* Scope.close(scope, Exit.void)
      const { deliveries, post } = yield* loadRecord(project.id, postId)
      expect(post.status).toBe("posted")
      expect(deliveries[0]!.status).toBe("success")
      const sql = yield* SqlClient.SqlClient
      const [lease] = yield* Effect.orDie(sql<{ readonly lease_owner: string | null }>`SELECT lease_owner FROM deliveries WHERE id = ${deliveries[0]!.id}`)
      expect(lease!.lease_owner).toBeNull()
      const server = yield* SimulatorServer
      expect(server.network.publishes().find((entry) => entry.marker === deliveries[0]!.id)?.postIds).toHaveLength(1)
    })), 30_000)
})
