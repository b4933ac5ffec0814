/**
 * What the Pinterest tests run on: the fake on loopback and the kit's direct-route harness over it
 * (stored media bytes only: Pinterest takes image bytes and video uploads, no URLs).
 */
import { Media, MediaId, ProjectId } from "@herald/core"
import { DateTime } from "effect"
import { randomUUID } from "node:crypto"
import { pinterestRoute } from "../../src/pinterest/PinterestRoute.js"
import type { Deadlines } from "../../src/kit/index.js"
import { shortDeadlines } from "../kit/Deadlines.js"
import { directHarness } from "../kit/DirectHarness.js"
import { PinterestFake, type PinterestFakeOptions } from "./PinterestFake.js"

const clientId = "1484362"
const clientSecret = "fake-pinterest-app-secret"

export const mediaItem = (kind: "image" | "video", options: { altText?: string; mime?: string; thumbnailTimestampMs?: number } = {}) =>
  new Media({
    id: MediaId.make(randomUUID()),
    projectId: ProjectId.make(randomUUID()),
    kind,
    mime: options.mime ?? (kind === "image" ? "image/jpeg" : "video/mp4"),
    bytes: 0,
    filename: null,
    width: 1000,
    height: 1500,
    durationSeconds: kind === "video" ? 8 : null,
    codec: kind === "image" ? "mjpeg" : "h264",
    altText: options.altText ?? null,
    peopleTags: [],
    thumbnailTimestampMs: options.thumbnailTimestampMs ?? null,
    storageKey: randomUUID(),
    createdAt: DateTime.unsafeMake("2026-11-24T08:00:00Z")
  })

export const makeHarness = async (fakeOptions: Partial<PinterestFakeOptions> = {}, deadlines: Deadlines = shortDeadlines) => {
  const fake = await new PinterestFake({ clientId, clientSecret, ...fakeOptions }).start()
  const harness = await directHarness({ platform: "pinterest", fake, client: { id: clientId, secret: clientSecret }, build: pinterestRoute, deadlines })
  const stop = async () => {
    await harness.dispose()
    await fake.stop()
  }
  return { ...harness, fake, stop }
}

export const jpegBytes = new Uint8Array([255, 216, 255, 224, 0, 16, 74, 70, 73, 70])
export const videoBytes = Uint8Array.from({ length: 2500 }, (_, i) => i % 251)
