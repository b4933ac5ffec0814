import { it } from "@effect/vitest"

// @effect/vitest 0.30's `layer(...)` assigns its layer-bound testers onto the `it` that every file
// imports (Object.assign on the shared object). Where files share a module graph (`isolate: false`,
// vitest.workspace.ts), a file's plain `it.effect` then ran inside the last layer another file
// declared — even one in a suite skipped for want of DATABASE_URL, whose layer failed to build.
// Each file starts from the methods `it` had before any file declared a layer.
const methods = ["effect", "scoped", "live", "scopedLive", "flakyTest", "layer", "prop"] as const
const key = Symbol.for("herald.test.effectVitestMethods")
const registry = globalThis as { [key]?: Pick<typeof it, typeof methods[number]> }
const pristine = registry[key] ??= Object.fromEntries(methods.map((name) => [name, it[name]])) as Pick<typeof it, typeof methods[number]>
Object.assign(it, pristine)
