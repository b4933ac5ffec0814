import { Context, Effect, Layer, Schema } from "effect"

/** No frame could be taken from the video (no decoder on this machine, an unreadable file, a time past its end). */
export class FrameUnavailable extends Schema.TaggedError<FrameUnavailable>()("FrameUnavailable", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** Still pictures taken from videos (a cover or thumbnail picked by thumbnail_timestamp_ms). */
export class VideoFrames extends Context.Tag("@herald/core/VideoFrames")<VideoFrames, {
  /** The frame shown `atMs` milliseconds into the video, as a JPEG. */
  readonly frameAt: (video: Uint8Array, atMs: number) => Effect.Effect<Uint8Array, FrameUnavailable>
}>() {
  /** No way to take frames here: every request answers FrameUnavailable. */
  static readonly unavailable: Layer.Layer<VideoFrames> = Layer.succeed(VideoFrames, VideoFrames.of({
    frameAt: () => Effect.fail(new FrameUnavailable({ reason: "this Herald takes no frames from videos (no ffmpeg configured)" }))
  }))
}
