import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { FrameUnavailable, traced, VideoFrames } from "@herald/core"
import { Effect, Layer } from "effect"
import { run } from "./Probe.js"

/**
 * Frames taken with ffmpeg (`command`: HERALD_FFMPEG, default `ffmpeg` on the PATH). Unlike
 * ffprobe, ffmpeg is not needed to start: only a publisher that sets a thumbnail asks for a frame,
 * and a machine without it answers FrameUnavailable saying so.
 */
export const ffmpegVideoFrames = (command = "ffmpeg") =>
  Layer.succeed(VideoFrames, VideoFrames.of({
    frameAt: traced("VideoFrames.frameAt")((video, atMs) =>
      Effect.acquireUseRelease(
        Effect.promise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "herald-frame-"))),
        (dir) =>
          Effect.gen(function*() {
            const input = Path.join(dir, "video")
            const output = Path.join(dir, "frame.jpg")
            yield* Effect.promise(() => Fs.writeFile(input, video))
            yield* run(command, ["-v", "error", "-ss", (atMs / 1000).toFixed(3), "-i", input, "-frames:v", "1", "-q:v", "2", "-f", "image2", "-c:v", "mjpeg", output]).pipe(
              Effect.mapError(({ detail }) => new FrameUnavailable({ reason: `ffmpeg (${command}) could not take the frame at ${atMs} ms: ${detail}` }))
            )
            const frame = yield* Effect.promise(() => Fs.readFile(output).then((bytes) => new Uint8Array(bytes), () => undefined))
            // ffmpeg exits cleanly with no frame when the time is past the last one.
            if (frame === undefined || frame.byteLength === 0) {
              return yield* new FrameUnavailable({ reason: `the video has no frame at ${atMs} ms` })
            }
            return frame
          }),
        (dir) => Effect.promise(() => Fs.rm(dir, { recursive: true, force: true }))
      )
    )
  }))
