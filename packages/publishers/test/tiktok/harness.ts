/**
 * What the TikTok tests run on: the fake on loopback, the route built against it through the
 * production HTTP client over the outbound guard, accounts connected through Herald's connection
 * flow on the fake's consent page (tokens kept and refreshed by Herald's AccountTokens) over the
 * in-memory stores, and media served at public URLs by a small loopback host whose prefix the
 * fake counts as verified (TikTok pulls photos, and videos sent by PULL_FROM_URL).
 */
import { Media, MediaId, ProjectId } from "@herald/core"
import { DateTime } from "effect"
import { randomUUID } from "node:crypto"
import type { TiktokSettings } from "../../src/tiktok/TiktokPublisher.js"
import { tiktokRoute } from "../../src/tiktok/TiktokRoute.js"
import type { Deadlines } from "../../src/kit/index.js"
import { shortDeadlines } from "../kit/Deadlines.js"
import { directHarness } from "../kit/DirectHarness.js"
import { startMediaHost } from "../threads/harness.js"
import { TiktokFake, type TiktokFakeOptions } from "./TiktokFake.js"

const clientKey = "awfaketiktokclientkey"
const clientSecret = "fake-tiktok-client-secret"

export const mediaItem = (kind: "image" | "video", options: { durationSeconds?: number; thumbnailTimestampMs?: number } = {}) =>
  new Media({
    id: MediaId.make(randomUUID()),
    projectId: ProjectId.make(randomUUID()),
    kind,
    mime: kind === "image" ? "image/jpeg" : "video/mp4",
    bytes: 0,
    filename: null,
    width: 1080,
    height: 1920,
    durationSeconds: kind === "video" ? options.durationSeconds ?? 5 : null,
    codec: kind === "image" ? "mjpeg" : "h264",
    altText: null,
    peopleTags: [],
    thumbnailTimestampMs: options.thumbnailTimestampMs ?? null,
    storageKey: randomUUID(),
    createdAt: DateTime.unsafeMake("2026-11-24T08:00:00Z")
  })

export interface HarnessOptions {
  readonly fake?: Partial<TiktokFakeOptions>
  readonly settings?: Partial<TiktokSettings>
  readonly deadlines?: Deadlines
}

export const makeHarness = async (options: HarnessOptions = {}) => {
  const bytes = new Map<string, Uint8Array>()
  const host = await startMediaHost(bytes)
  const settings: TiktokSettings = { audited: true, videoTransfer: "file_upload", ...options.settings }
  const fake = await new TiktokFake({ clientKey, clientSecret, audited: settings.audited, verifiedUrlPrefixes: [`${host.url}/media/`], ...options.fake }).start()
  const harness = await directHarness({
    platform: "tiktok",
    fake,
    client: { id: clientKey, secret: clientSecret },
    build: (endpoints) => tiktokRoute(endpoints, settings),
    deadlines: options.deadlines ?? shortDeadlines,
    // What a bucket's presigned GET is in production: a URL TikTok downloads the bytes from.
    publicUrl: (key) => `${host.url}/media/${key}`,
    bytes
  })

  const stop = async () => {
    await harness.dispose()
    await host.stop()
    await fake.stop()
  }

  return { fake, route: harness.route, data: harness.data, runtime: harness.runtime, connect: harness.connect, withBytes: harness.withBytes, routeWithin: harness.routeWithin, stop }
}

/** A small video's bytes (the fake takes any bytes; TikTok would inspect them). */
export const videoBytes = (length = 2500) => Uint8Array.from({ length }, (_, i) => i % 251)
