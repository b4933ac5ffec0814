import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { gzipSync } from "node:zlib"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { message } from "./ApprovalPage.js"

interface Asset {
  readonly type: string
  readonly body: Uint8Array
  readonly gzip: Uint8Array
  readonly etag: string
}

const types: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8"
}

/** Every file of the built dashboard, by its path under /dashboard/, read (and gzipped) once. */
const readAssets = (dir: string): ReadonlyMap<string, Asset> => {
  const assets = new Map<string, Asset>()
  if (!Fs.existsSync(Path.join(dir, "index.html"))) return assets
  for (const entry of Fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const file = Path.join(entry.parentPath, entry.name)
    const body = Fs.readFileSync(file)
    assets.set(Path.relative(dir, file).split(Path.sep).join("/"), {
      type: types[Path.extname(file)] ?? "application/octet-stream",
      body,
      gzip: gzipSync(body, { level: 9 }),
      etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`
    })
  }
  return assets
}

/**
 * The page talks to this server only, runs no inline script and is never framed; pictures may be
 * the media URLs posts carry.
 */
const securityHeaders = {
  "content-security-policy": "default-src 'self'; img-src 'self' data: blob: https: http:; media-src 'self' blob: https: http:; " +
    "style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer"
}

/**
 * The dashboard's built files (packages/dashboard, `npm run build`) at /dashboard/: index.html for
 * the page (it routes with the URL's fragment, so no other path needs it), the hashed assets
 * cached for a year, gzipped for a client that accepts it. Without a build the page says how to make one.
 */
export const DashboardAssetsLive = (dir: string) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const assets = readAssets(dir)
      const serve = (path: string) =>
        Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
          const asset = assets.get(path)
          if (asset === undefined) {
            return assets.size === 0
              ? message("Dashboard not built", "Build it with: npm run build -w @herald/dashboard", 503)
              : message("Not found", "There is no such page in the dashboard.", 404)
          }
          const headers = {
            ...securityHeaders,
            etag: asset.etag,
            vary: "accept-encoding",
            "cache-control": path.startsWith("assets/") ? "public, max-age=31536000, immutable" : "no-cache"
          }
          if (request.headers["if-none-match"] === asset.etag) return HttpServerResponse.empty({ status: 304, headers })
          const gzip = /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")
          return HttpServerResponse.uint8Array(gzip ? asset.gzip : asset.body, {
            contentType: asset.type,
            headers: gzip ? { ...headers, "content-encoding": "gzip" } : headers
          })
        })
      // The router takes /dashboard and /dashboard/ as one path; the page's asset URLs are absolute.
      yield* router.get("/dashboard/", serve("index.html"))
      yield* router.get("/dashboard/assets/*", Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        serve(new URL(request.url, "http://x").pathname.slice("/dashboard/".length))))
    })
  )
