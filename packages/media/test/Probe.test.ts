import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { MediaProbe } from "@herald/core"
import { Context, Effect, Layer } from "effect"
import { ffprobeMediaProbe, resolveFfprobe } from "../src/index.js"

const systemFfprobe = spawnSync("ffprobe", ["-version"]).status === 0

/** A 1×1 PNG. */
const png = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64"
)

const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-probe-"))
const emptyDir = Fs.mkdtempSync(Path.join(dir, "bin-"))

/** Runs `effect` with a PATH that holds only an empty directory, as on a machine without ffmpeg. */
const withoutFfprobeOnPath = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const previous = process.env.PATH
      process.env.PATH = emptyDir
      return previous
    }),
    () => effect,
    (previous) =>
      Effect.sync(() => {
        process.env.PATH = previous
      })
  )

describe("resolveFfprobe", () => {
  it.live.skipIf(!systemFfprobe)("takes ffprobe from the PATH first (needs ffprobe on the PATH)", () =>
    Effect.gen(function*() {
      expect(yield* resolveFfprobe()).toBe("ffprobe")
    }))

  it.live("falls back to the ffprobe bundled with the npm dependencies when none is on the PATH", () =>
    Effect.gen(function*() {
      const bundled = yield* withoutFfprobeOnPath(resolveFfprobe())
      expect(Path.isAbsolute(bundled)).toBe(true)
      expect(bundled).toContain(`${Path.sep}@ffprobe-installer${Path.sep}`)
    }))

  it.live("runs the configured command as given, and names it when it does not run", () =>
    Effect.gen(function*() {
      const bundled = yield* withoutFfprobeOnPath(resolveFfprobe())
      expect(yield* resolveFfprobe(bundled)).toBe(bundled)
      const absent = Path.join(emptyDir, "ffprobe")
      const missing = yield* Effect.flip(resolveFfprobe(absent))
      expect(missing._tag).toBe("FfprobeMissing")
      expect(missing.message).toContain(`could not be run as ${JSON.stringify(absent)} (`)
      expect(missing.message).toContain("ENOENT")
    }))
})

describe("ffprobeMediaProbe", () => {
  it.scopedLive("measures an image with the bundled ffprobe on a machine without one", () =>
    Effect.gen(function*() {
      const context = yield* withoutFfprobeOnPath(Layer.build(ffprobeMediaProbe()))
      const location = Path.join(dir, "one.png")
      Fs.writeFileSync(location, png)
      const facts = yield* Context.get(context, MediaProbe).inspect({ location, bytes: png.length, filename: "one.png" })
      expect(facts).toEqual({ kind: "image", mime: "image/png", width: 1, height: 1, durationSeconds: null, codec: "png" })
    }))
})
