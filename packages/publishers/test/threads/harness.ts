/**
 * What the Threads tests run on: the fake on loopback and the kit's direct-route harness over it,
 * with media served to the fake at public URLs by a small loopback host (Threads downloads media;
 * it takes no bytes).
 */
import { Media, MediaId, ProjectId } from "@herald/core"
import { DateTime } from "effect"
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { threadsRoute } from "../../src/threads/ThreadsRoute.js"
import type { Deadlines } from "../../src/kit/index.js"
import { shortDeadlines } from "../kit/Deadlines.js"
import { directHarness } from "../kit/DirectHarness.js"
import { ThreadsFake, type ThreadsFakeOptions } from "./ThreadsFake.js"

const clientId = "1234567890123456"
const clientSecret = "fake-threads-app-secret"

export const mediaItem = (kind: "image" | "video", options: { altText?: string } = {}) =>
  new Media({
    id: MediaId.make(randomUUID()),
    projectId: ProjectId.make(randomUUID()),
    kind,
    mime: kind === "image" ? "image/jpeg" : "video/mp4",
    bytes: 0,
    filename: null,
    width: 1080,
    height: 1080,
    durationSeconds: kind === "video" ? 5 : null,
    codec: kind === "image" ? "mjpeg" : "h264",
    altText: options.altText ?? null,
    peopleTags: [],
    thumbnailTimestampMs: null,
    storageKey: randomUUID(),
    createdAt: DateTime.unsafeMake("2026-11-24T08:00:00Z")
  })

/** A loopback host serving stored bytes at /media/<storage key>, standing in for a public media URL. */
export const startMediaHost = async (bytes: Map<string, Uint8Array>) => {
  const server = createServer((req, res) => {
    const key = decodeURIComponent((req.url ?? "").replace(/^\/media\//, ""))
    const found = bytes.get(key)
    if (found === undefined) {
      res.writeHead(404)
      return res.end()
    }
    res.writeHead(200, { "content-type": "application/octet-stream" })
    return res.end(Buffer.from(found))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

export const makeHarness = async (fakeOptions: Partial<ThreadsFakeOptions> = {}, deadlines: Deadlines = shortDeadlines) => {
  const fake = await new ThreadsFake({ clientId, clientSecret, ...fakeOptions }).start()
  const served = new Map<string, Uint8Array>()
  const host = await startMediaHost(served)
  const harness = await directHarness({
    platform: "threads",
    fake,
    client: { id: clientId, secret: clientSecret },
    build: threadsRoute,
    deadlines,
    publicUrl: (key) => `${host.url}/media/${key}`,
    bytes: served
  })
  const stop = async () => {
    await harness.dispose()
    await host.stop()
    await fake.stop()
  }
  return { ...harness, fake, stop }
}
