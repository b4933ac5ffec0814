import { execFileSync } from "node:child_process"
import { promises as dns } from "node:dns"
import * as Fs from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import {
  AccountId,
  BuiltinClassifier,
  type ActorKind,
  ApiKeyId,
  MediaNotConfigured,
  noGuardrails,
  PeopleTagCheck,
  Project,
  ProjectId,
  type Scope,
  SocialAccount,
  UploadTickets,
  ConnectionCheckRuns,
  ConnectionProbes
} from "@herald/core"
import {
  InMemoryApiKeys,
  InMemoryData,
  inMemoryRateLimits,
  makeInMemoryStores,
  noMediaIngest,
  publishersOf,
  RecordingPublisher,
  makeInMemoryConnections,
  makeInMemoryApprovalChannels,
} from "@herald/core/memory"
import { createNodeServer, displayPrefix, generateApiKey, hashApiKey, HttpApiConfig, serveHttpApi } from "@herald/http-api"
import { type BucketConfig, MediaLive } from "@herald/media"
import { OutboundGuard, type ResolveHost } from "@herald/outbound"
import { DateTime, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { RandomIds } from "../../src/Engine.js"

export const tempDir = (prefix: string) => Fs.mkdtempSync(Path.join(Os.tmpdir(), prefix))

/** Real files of each kind, made here: ffmpeg for the pictures and the video, a PDF by hand. */
const madeFixtures = () => {
  const dir = tempDir("herald-media-fixtures-")
  const ffmpeg = (name: string, ...args: Array<string>) => {
    const path = Path.join(dir, name)
    execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args, path])
    const bytes = Fs.readFileSync(path)
    Fs.rmSync(path)
    return bytes
  }
  const pdf = Buffer.from(
    "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n" +
      "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n" +
      "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj\n" +
      "trailer << /Root 1 0 R >>\n%%EOF\n"
  )
  const fixtures = {
    png: ffmpeg("photo.png", "-f", "lavfi", "-i", "color=c=red:s=64x48", "-frames:v", "1"),
    jpeg: ffmpeg("photo.jpg", "-f", "lavfi", "-i", "color=c=blue:s=80x60", "-frames:v", "1"),
    mp4: ffmpeg(
      "clip.mp4",
      "-f", "lavfi", "-i", "testsrc=duration=1.5:size=64x48:rate=10",
      "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast"
    ),
    pdf,
    text: Buffer.from("just words, not a picture\n")
  }
  Fs.rmdirSync(dir)
  return fixtures
}
export type Fixtures = ReturnType<typeof madeFixtures>

let made: Fixtures | undefined
/**
 * The fixtures, made once a process: the test files a worker runs share its module graph
 * (vitest.config.ts), and ffmpeg's start-up is most of their cost. Read them, never write to them.
 */
export const makeFixtures = (): Fixtures => made ??= madeFixtures()

/** A plain loopback HTTP server with fixed routes; `hits` counts every request it got. */
export const startHttp = async (routes: (url: string, response: ServerResponse, request: IncomingMessage) => void) => {
  const hits: Array<string> = []
  const server: Server = createServer((request, response) => {
    hits.push(request.url ?? "")
    routes(request.url ?? "", response, request)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** Test names resolve here; besides them only "localhost" resolves (through the system). */
export const lookups: Array<string> = []
const resolveHost: ResolveHost = async (hostname) => {
  lookups.push(hostname)
  if (hostname === "localhost") return dns.lookup(hostname, { all: true })
  if (hostname === "loopback.test") return [{ address: "127.0.0.1", family: 4 }]
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
}

const project = (n: number) =>
  new Project({
    id: ProjectId.make(`10000000-0000-4000-8000-00000000000${n}`),
    name: `Project ${n}`,
    timezone: "UTC",
    approval: "autopilot",
    signature: "",
    guardrails: noGuardrails,
    plan: "active"
  })

export interface MediaServerOptions {
  /** "local" (a temp directory), a bucket, or none at all. */
  readonly storage: "local" | "none" | { readonly bucket: BucketConfig }
  /** Loopback ports the outbound guard may reach (the test's asset server). */
  readonly loopbackPorts?: ReadonlyArray<number>
}

/**
 * The REST API on a real node:http server (127.0.0.1, port 0) with the real media adapters:
 * disk staging through the outbound guard (production rules, plus the asset server's port),
 * file-type + ffprobe, local or S3 storage. Project 1 has an instagram account that can take
 * people tags (handles alice and bob.b exist); project 2's instagram account cannot.
 */
export const startMediaServer = async (options: MediaServerOptions) => {
  const data = new InMemoryData()
  const [one, two] = [project(1), project(2)]
  for (const p of [one, two]) data.projects.set(p.id, p)
  const connect = (n: number, projectId: ProjectId, route: "simulator" | "direct") => {
    const account = new SocialAccount({
      id: AccountId.make(`20000000-0000-4000-8000-00000000000${n}`),
      projectId,
      platform: "instagram",
      username: "acme",
      route,
      status: "active"
    })
    data.accounts.set(account.id, account)
  }
  connect(1, one.id, "simulator")
  connect(2, two.id, "direct")

  const keys = new InMemoryApiKeys()
  let keyNo = 0
  const keyFor = (projectId: ProjectId, kind: ActorKind, scopes: ReadonlyArray<Scope>) => {
    const key = generateApiKey(kind)
    const id = ApiKeyId.make(`30000000-0000-4000-8000-${String(++keyNo).padStart(12, "0")}`)
    keys.byHash.set(hashApiKey(key), {
      key: {
        id,
        projectId,
        name: `key ${keyNo}`,
        hash: hashApiKey(key),
        prefix: displayPrefix(key),
        kind,
        scopes,
        rateLimitPerMinute: 10_000,
        dailyPostCap: null,
        createdAt: DateTime.unsafeMake(0)
      },
      revokedAt: null,
      lastUsedAt: null
    })
    return key
  }
  const tokens = {
    writer: keyFor(one.id, "agent", ["posts:read", "posts:write"]),
    reader: keyFor(one.id, "human", ["posts:read"]),
    other: keyFor(two.id, "human", ["posts:read", "posts:write"])
  }

  const mediaDir = tempDir("herald-media-")
  const guard = OutboundGuard.layer({ production: false, loopbackPorts: options.loopbackPorts ?? [], resolveHost })
  const media = options.storage === "none"
    ? Layer.merge(MediaNotConfigured, noMediaIngest)
    : MediaLive({
      localDir: options.storage === "local" ? mediaDir : null,
      bucket: options.storage === "local" ? null : options.storage.bucket,
      stagingDir: Path.join(mediaDir, ".staging")
    }).pipe(
      Layer.provide(guard),
      Layer.provideMerge(Layer.merge(UploadTickets.inMemory(), PeopleTagCheck.fromDirectory(["alice", "bob.b"])))
    )
  const base = Layer.mergeAll(
    makeInMemoryStores(data),
    RandomIds,
    publishersOf(new RecordingPublisher()),
    makeInMemoryConnections(data),
    makeInMemoryApprovalChannels(data),
    ConnectionProbes.layer([]),
    ConnectionCheckRuns.layer("test"),
    BuiltinClassifier,
    keys.layer,
    inMemoryRateLimits(),
    Layer.succeed(HttpApiConfig, HttpApiConfig.of({ baseUrl: "http://herald.test/", approvalSecret: Redacted.make("unused") }))
  )
  const services = media.pipe(Layer.provideMerge(base))

  const runtime = ManagedRuntime.make(
    serveHttpApi.pipe(
      Layer.provideMerge(NodeHttpServer.layer(createNodeServer, { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(services)
    )
  )
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  const origin = `http://127.0.0.1:${address.port}`

  const call = (path: string, init: RequestInit & { readonly key?: string; readonly json?: unknown } = {}): Promise<Reply> => {
    const { json, key, ...rest } = init
    const headers = new Headers(rest.headers)
    if (key !== undefined) headers.set("authorization", `Bearer ${key}`)
    if (json !== undefined) headers.set("content-type", "application/json")
    return fetch(`${origin}${path}`, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) })
  }

  /** POST /media as multipart: the file first, then the text fields. */
  const upload = (key: string, file: Uint8Array, fields: Record<string, string | ReadonlyArray<string>> = {}, name = "upload.bin") => {
    const form = new FormData()
    form.append("file", new Blob([file], { type: "image/png" }), name)
    for (const [field, value] of Object.entries(fields)) {
      for (const one of typeof value === "string" ? [value] : value) form.append(field, one)
    }
    return call("/api/v1/media", { method: "POST", key, body: form })
  }

  return {
    origin,
    call,
    upload,
    data,
    tokens,
    mediaDir,
    projects: { one, two },
    run: <A, E>(effect: Effect.Effect<A, E, UploadTickets>) => runtime.runPromise(effect),
    close: () => runtime.dispose()
  }
}

/** Replies are read loosely: the tests assert their shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any
export interface Reply extends Response {
  json(): Promise<Json>
}
export type MediaServer = Awaited<ReturnType<typeof startMediaServer>>
