import { execFileSync, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { VideoFrames } from "@herald/core"
import { Effect } from "effect"
import { ffmpegVideoFrames } from "../src/index.js"

const systemFfmpeg = spawnSync("ffmpeg", ["-version"]).status === 0

/** Two seconds: the first red, the second blue (a frame's colour says which second it came from). */
const twoColours = () => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-frames-"))
  const file = Path.join(dir, "clip.mp4")
  execFileSync("ffmpeg", [
    "-v", "error", "-f", "lavfi", "-i", "color=c=red:s=64x48:d=1:r=10", "-f", "lavfi", "-i", "color=c=blue:s=64x48:d=1:r=10",
    "-filter_complex", "[0][1]concat=n=2:v=1", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", file
  ])
  return new Uint8Array(Fs.readFileSync(file))
}

/** The mean red and blue of a JPEG, decoded back by ffmpeg to one raw RGB pixel. */
const colourOf = (jpeg: Uint8Array) => {
  const rgb = execFileSync("ffmpeg", ["-v", "error", "-i", "pipe:0", "-vf", "scale=1:1", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"], { input: jpeg })
  return { red: rgb[0]!, blue: rgb[2]! }
}

describe.skipIf(!systemFfmpeg)("ffmpegVideoFrames (needs ffmpeg on the PATH)", () => {
  const video = systemFfmpeg ? twoColours() : new Uint8Array()
  const frameAt = (atMs: number) => Effect.flatMap(VideoFrames, (frames) => frames.frameAt(video, atMs)).pipe(Effect.provide(ffmpegVideoFrames()))

  it.effect("takes the frame shown at the given millisecond, as a JPEG", () =>
    Effect.gen(function*() {
      const early = yield* frameAt(300)
      const late = yield* frameAt(1500)
      expect([early[0], early[1]]).toEqual([0xff, 0xd8])
      expect(colourOf(early).red).toBeGreaterThan(colourOf(early).blue)
      expect(colourOf(late).blue).toBeGreaterThan(colourOf(late).red)
    }))

  it.effect("a time past the end, a file that is no video, or no ffmpeg is FrameUnavailable saying why", () =>
    Effect.gen(function*() {
      expect((yield* Effect.flip(frameAt(60_000))).reason).toContain("no frame at 60000 ms")
      const notVideo = yield* Effect.flip(Effect.flatMap(VideoFrames, (frames) => frames.frameAt(new TextEncoder().encode("just words"), 0)).pipe(Effect.provide(ffmpegVideoFrames())))
      expect(notVideo._tag).toBe("FrameUnavailable")
      const missing = yield* Effect.flip(Effect.flatMap(VideoFrames, (frames) => frames.frameAt(video, 0)).pipe(Effect.provide(ffmpegVideoFrames("/nonexistent/ffmpeg"))))
      expect(missing.reason).toContain("/nonexistent/ffmpeg")
    }))
})
