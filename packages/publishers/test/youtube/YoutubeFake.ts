/**
 * A fake of Google's OAuth 2.0 and the YouTube APIs on loopback, at their documented paths: the
 * consent page (accounts.google.com /o/oauth2/v2/auth, with access_type, prompt and PKCE S256),
 * the token endpoint (oauth2.googleapis.com /token: authorization_code and refresh_token grants,
 * client secret in the body, `invalid_grant` for a revoked or expired grant), the Data API v3
 * (/youtube/v3/channels?mine=true, /youtube/v3/videos list and delete), the resumable upload
 * protocol (/upload/youtube/v3/videos?uploadType=resumable: a session URI in Location, chunks in
 * multiples of 256 KiB with Content-Range, 308 Resume Incomplete with Range, `bytes *\/N` probes,
 * the video resource on the last byte), thumbnails.set (/upload/youtube/v3/thumbnails/set) and
 * the Analytics API (/v2/reports). Refusals are in Google's envelope
 * `{ error: { code, message, errors: [{ message, domain, reason }], status } }`; videos go through
 * YouTube's processing states (uploadStatus uploaded → processed, or rejected), and the project's
 * daily quota is counted as YouTube counts it (quotaExceeded past it).
 */
import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { FakeControls } from "../kit/publisherContract.js"
import { FaultQueue } from "../kit/FaultQueue.js"

export interface YoutubeFakeOptions {
  readonly clientId: string
  readonly clientSecret: string
  readonly channel?: { readonly id: string; readonly title: string; readonly customUrl: string }
  /** videos.list reads a video stays processing before it is processed. */
  readonly processingReads?: number
  /** The project's units a day (YouTube's default: 10,000). */
  readonly dailyQuota?: number
}

const scope = (name: string) => `https://www.googleapis.com/auth/${name}`
const uploadScopes = [scope("youtube.upload"), scope("youtube"), scope("youtube.force-ssl"), scope("youtubepartner")]
const manageScopes = [scope("youtube"), scope("youtube.force-ssl"), scope("youtubepartner")]
const readScopes = [...manageScopes, scope("youtube.readonly")]
const analyticsScopes = [scope("yt-analytics.readonly"), scope("yt-analytics-monetary.readonly")]
const categories = new Set(["1", "2", "10", "15", "17", "19", "20", "22", "23", "24", "25", "26", "27", "28", "29"])
const chunkUnit = 256 * 1024
const costs = { insert: 1600, list: 1, delete: 50, thumbnail: 50 }

interface Grant {
  readonly scopes: Set<string>
  access: string
  readonly refresh: string | null
  accessValid: boolean
  refreshValid: boolean
}

interface Session {
  readonly id: string
  readonly total: number
  readonly metadata: VideoMetadata
  readonly parts: ReadonlyArray<string>
  readonly received: Array<Buffer>
  bytes: number
  video: FakeVideo | null
  gone: boolean
}

export interface VideoMetadata {
  readonly snippet: { readonly title: string; readonly description: string; readonly categoryId?: string }
  readonly status?: { readonly privacyStatus?: string; readonly containsSyntheticMedia?: boolean }
  readonly paidProductPlacementDetails?: { readonly hasPaidProductPlacement?: boolean }
}

export interface FakeVideo {
  readonly id: string
  readonly metadata: VideoMetadata
  readonly bytes: Buffer
  readonly publishedAt: string
  uploadStatus: "uploaded" | "processed" | "rejected" | "deleted"
  rejectionReason: string | null
  reads: number
  thumbnail: Buffer | null
  deleted: boolean
  statistics: { viewCount: number; likeCount: number; commentCount: number; shares: number }
}

export interface Fault {
  readonly status: number
  readonly body?: unknown
  readonly headers?: Record<string, string>
  /** Only a call of this method and path takes the fault ("POST /upload/youtube/v3/videos"); any call when absent. */
  readonly call?: string
}

const googleStatus: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE"
}

/** Google's error envelope. */
export const googleError = (code: number, reason: string, message: string, domain = "youtube.api") => ({
  error: { code, message, errors: [{ message, domain, reason }], status: googleStatus[code] ?? "UNKNOWN" }
})

const defaultFault = (status: number) =>
  status === 429
    ? googleError(429, "rateLimitExceeded", "The request cannot be completed because you have exceeded your quota.", "youtube.quota")
    : status >= 500
    ? googleError(status, "backendError", "Backend Error", "global")
    : googleError(status, status === 401 ? "authError" : "badRequest", `HTTP ${status}`, "global")

const videoId = () => randomBytes(8).toString("base64url").slice(0, 11)

export class YoutubeFake {
  readonly videos: Array<FakeVideo> = []
  readonly sessions = new Map<string, Session>()
  /** Every API call, as `METHOD /path?query`. */
  readonly calls: Array<string> = []
  /** Token endpoint calls, by grant type. */
  readonly tokenCalls: Array<string> = []
  /** The Content-Range of every upload PUT (chunks and `bytes *\/N` probes), in order. */
  readonly uploadRanges: Array<string> = []
  /** Units the project spent today. */
  quotaUsed = 0
  /** The counts a new video starts with (what YouTube would report of it when Herald first asks). */
  newVideoStatistics = { viewCount: 0, likeCount: 0, commentCount: 0, shares: 0 }
  readonly channel: { readonly id: string; readonly title: string; readonly customUrl: string }
  private readonly grants: Array<Grant> = []
  private readonly codes = new Map<string, { redirectUri: string; challenge: string; scopes: Set<string>; offline: boolean }>()
  private readonly faults = new FaultQueue<Fault>()
  private hangUpload = false
  private dropChunks = 0
  private rejectNextAs: string | null = null
  private readonly hung: Array<ServerResponse> = []
  private server: Server | undefined
  private base = ""

  constructor(readonly options: YoutubeFakeOptions) {
    this.channel = options.channel ?? { id: "UCw3zQ9dNtJ3d5Qp6l9xq5Ag", title: "Ada Lovelace", customUrl: "@adalovelace" }
  }

  get url(): string {
    return this.base
  }

  start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) this.json(res, 500, googleError(500, "backendError", String(error), "global"))
        else res.destroy()
      })
    })
    return new Promise((resolve) => {
      this.server!.listen(0, "127.0.0.1", () => {
        this.base = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`
        resolve(this)
      })
    })
  }

  stop(): Promise<void> {
    for (const res of this.hung.splice(0)) res.destroy()
    this.server?.closeAllConnections()
    return new Promise((resolve) => this.server === undefined ? resolve() : this.server.close(() => resolve()))
  }

  // Hooks ------------------------------------------------------------------------------------

  /** The next API call (not the consent page or the token endpoint) answers this instead. */
  failNext(fault: Fault): void {
    this.faults.push(fault, (call) => fault.call === undefined || fault.call === call)
  }

  /** The next upload request that completes a video makes it and is never answered. */
  hangNext(): void {
    this.hangUpload = true
  }

  /** The next `count` chunk uploads are cut off: the connection drops, the session keeps none of their bytes. */
  dropNextChunks(count = 1): void {
    this.dropChunks = count
  }

  /** The next video YouTube finishes receiving is rejected (rejectionReason). */
  rejectNext(reason: string): void {
    this.rejectNextAs = reason
  }

  /** Access tokens stop working; refresh tokens still work. */
  expireTokens(): void {
    for (const grant of this.grants) grant.accessValid = false
  }

  /** Access and refresh tokens stop working (revoked, or a Testing-mode app's 7 days passed). */
  revokeGrants(): void {
    for (const grant of this.grants) {
      grant.accessValid = false
      grant.refreshValid = false
    }
  }

  /** The grants lose `name` and, for youtube.upload, the broader scopes that include uploading. */
  revokeScope(name: string): void {
    const lost = name === scope("youtube.upload") ? uploadScopes : [name]
    for (const grant of this.grants) for (const one of lost) grant.scopes.delete(one)
  }

  /** Every upload session expires (YouTube keeps one for about a week). */
  expireSessions(): void {
    for (const session of this.sessions.values()) session.gone = true
  }

  liveVideos(): ReadonlyArray<FakeVideo> {
    return this.videos.filter((video) => !video.deleted)
  }

  /** The handle publisherContract drives. */
  controls(): FakeControls {
    return {
      failNext: (reply) => this.failNext(reply),
      hangNext: () => this.hangNext(),
      expireToken: () => this.expireTokens(),
      revokeGrant: () => this.revokeGrants(),
      revokeScope: (name) => this.revokeScope(name),
      publishScope: scope("youtube.upload"),
      posts: () => this.liveVideos().map((video) => ({ id: video.id, text: video.metadata.snippet.description, media: 1 })),
      refreshes: () => this.tokenCalls.filter((grant) => grant === "refresh_token").length
    }
  }

  /** Follows a consent URL as the user who approves: the redirect Google would send the browser to. */
  async consent(authorizeUrl: string): Promise<URL> {
    const reply = await fetch(authorizeUrl, { redirect: "manual" })
    const location = reply.headers.get("location")
    if (reply.status !== 302 || location === null) throw new Error(`the consent page answered ${reply.status}: ${await reply.text()}`)
    return new URL(location)
  }

  // Server -----------------------------------------------------------------------------------

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { "content-type": "application/json; charset=UTF-8", ...headers })
    res.end(JSON.stringify(body))
  }

  private body(req: IncomingMessage): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => resolve(Buffer.concat(chunks)))
      req.on("error", reject)
    })
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", this.base)
    if (url.pathname === "/o/oauth2/v2/auth") return this.authorize(url, res)
    if (url.pathname === "/token" && req.method === "POST") return this.token(new URLSearchParams((await this.body(req)).toString("utf8")), res)
    this.calls.push(`${req.method} ${url.pathname}${url.search}`)
    const fault = this.faults.take(`${req.method} ${url.pathname}`)
    if (fault !== undefined) {
      await this.body(req)
      const body = fault.body ?? defaultFault(fault.status)
      res.writeHead(fault.status, { "content-type": typeof body === "string" ? "text/html" : "application/json; charset=UTF-8", ...fault.headers })
      return res.end(typeof body === "string" ? body : JSON.stringify(body))
    }
    const grant = this.bearer(req)
    if (grant === undefined) {
      await this.body(req)
      return this.json(res, 401, googleError(401, "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.", "global"), {
        "www-authenticate": "Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\""
      })
    }
    const route = `${req.method} ${url.pathname}`
    switch (route) {
      case "GET /youtube/v3/channels":
        return this.channels(url, grant, res)
      case "POST /upload/youtube/v3/videos":
        return this.openSession(url, req, grant, res)
      case "PUT /upload/youtube/v3/videos":
        return this.uploadChunk(url, req, res)
      case "GET /youtube/v3/videos":
        return this.listVideos(url, grant, res)
      case "DELETE /youtube/v3/videos":
        return this.deleteVideo(url, grant, res)
      case "POST /upload/youtube/v3/thumbnails/set":
        return this.setThumbnail(url, req, grant, res)
      case "GET /v2/reports":
        return this.report(url, grant, res)
      default:
        return this.json(res, 404, googleError(404, "notFound", `no route ${route}`, "global"))
    }
  }

  private authorize(url: URL, res: ServerResponse) {
    const params = url.searchParams
    const redirectUri = params.get("redirect_uri") ?? ""
    const bad = (message: string) => {
      res.writeHead(400, { "content-type": "text/html" })
      res.end(`<h1>Error 400: invalid_request</h1><p>${message}</p>`)
    }
    if (params.get("client_id") !== this.options.clientId) return bad("The OAuth client was not found.")
    if (params.get("response_type") !== "code") return bad("response_type must be code")
    if (params.get("code_challenge_method") !== "S256" || (params.get("code_challenge") ?? "") === "") return bad("PKCE S256 expected")
    const scopes = new Set((params.get("scope") ?? "").split(" ").filter((one) => one !== ""))
    if (scopes.size === 0) return bad("Missing required parameter: scope")
    const code = `4/${randomBytes(24).toString("base64url")}`
    // A refresh token comes only with offline access, and again on a reconnect only with prompt=consent.
    this.codes.set(code, {
      redirectUri,
      challenge: params.get("code_challenge")!,
      scopes,
      offline: params.get("access_type") === "offline" && params.get("prompt") === "consent"
    })
    const to = new URL(redirectUri)
    to.searchParams.set("state", params.get("state") ?? "")
    to.searchParams.set("code", code)
    to.searchParams.set("scope", [...scopes].join(" "))
    res.writeHead(302, { location: to.toString() })
    res.end()
  }

  private token(form: URLSearchParams, res: ServerResponse) {
    const grantType = form.get("grant_type") ?? ""
    this.tokenCalls.push(grantType)
    const invalidGrant = (description: string) => this.json(res, 400, { error: "invalid_grant", error_description: description })
    if (form.get("client_id") !== this.options.clientId || form.get("client_secret") !== this.options.clientSecret) {
      return this.json(res, 401, { error: "invalid_client", error_description: "The OAuth client was not found." })
    }
    if (grantType === "authorization_code") {
      const code = this.codes.get(form.get("code") ?? "")
      this.codes.delete(form.get("code") ?? "")
      if (code === undefined) return invalidGrant("Malformed auth code.")
      if (code.redirectUri !== form.get("redirect_uri")) return this.json(res, 400, { error: "redirect_uri_mismatch", error_description: "Bad Request" })
      const verifier = form.get("code_verifier") ?? ""
      if (createHash("sha256").update(verifier).digest("base64url") !== code.challenge) return invalidGrant("Invalid code verifier.")
      const grant: Grant = {
        scopes: code.scopes,
        access: `ya29.${randomBytes(24).toString("base64url")}`,
        refresh: code.offline ? `1//${randomBytes(24).toString("base64url")}` : null,
        accessValid: true,
        refreshValid: true
      }
      this.grants.push(grant)
      return this.json(res, 200, {
        access_token: grant.access,
        expires_in: 3599,
        ...(grant.refresh === null ? {} : { refresh_token: grant.refresh }),
        scope: [...grant.scopes].join(" "),
        token_type: "Bearer"
      })
    }
    if (grantType === "refresh_token") {
      const grant = this.grants.find((one) => one.refresh !== null && one.refresh === form.get("refresh_token"))
      if (grant === undefined || !grant.refreshValid) return invalidGrant("Token has been expired or revoked.")
      grant.access = `ya29.${randomBytes(24).toString("base64url")}`
      grant.accessValid = true
      // Google keeps the refresh token: the reply carries none.
      return this.json(res, 200, { access_token: grant.access, expires_in: 3599, scope: [...grant.scopes].join(" "), token_type: "Bearer" })
    }
    return this.json(res, 400, { error: "unsupported_grant_type", error_description: `Invalid grant_type: ${grantType}` })
  }

  private bearer(req: IncomingMessage): Grant | undefined {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
    return this.grants.find((grant) => grant.access === token && grant.accessValid)
  }

  private granted(grant: Grant, needed: ReadonlyArray<string>, res: ServerResponse): boolean {
    if (needed.some((one) => grant.scopes.has(one))) return true
    this.json(res, 403, googleError(403, "insufficientPermissions", "Request had insufficient authentication scopes.", "global"))
    return false
  }

  /** Spends units of today's quota, or answers quotaExceeded. */
  private spend(units: number, res: ServerResponse): boolean {
    const daily = this.options.dailyQuota ?? 10_000
    if (this.quotaUsed + units > daily) {
      this.json(res, 403, googleError(403, "quotaExceeded", "The request cannot be completed because you have exceeded your <a href=\"/youtube/v3/getting-started#quota\">quota</a>.", "youtube.quota"))
      return false
    }
    this.quotaUsed += units
    return true
  }

  private channels(url: URL, grant: Grant, res: ServerResponse) {
    if (url.searchParams.get("mine") !== "true") return this.json(res, 400, googleError(400, "missingRequiredParameter", "No filter selected."))
    if (!this.granted(grant, readScopes, res) || !this.spend(costs.list, res)) return
    const parts = (url.searchParams.get("part") ?? "").split(",")
    return this.json(res, 200, {
      kind: "youtube#channelListResponse",
      items: [{ kind: "youtube#channel", id: this.channel.id, ...(parts.includes("snippet") ? { snippet: { title: this.channel.title, customUrl: this.channel.customUrl } } : {}) }]
    })
  }

  private async openSession(url: URL, req: IncomingMessage, grant: Grant, res: ServerResponse) {
    const raw = (await this.body(req)).toString("utf8")
    if (url.searchParams.get("uploadType") !== "resumable") return this.json(res, 400, googleError(400, "badRequest", "uploadType must be resumable here"))
    if (!this.granted(grant, uploadScopes, res)) return
    const total = Number(req.headers["x-upload-content-length"])
    const type = String(req.headers["x-upload-content-type"] ?? "")
    if (!Number.isInteger(total) || total <= 0) return this.json(res, 400, googleError(400, "badRequest", "X-Upload-Content-Length is required"))
    if (!/^(video\/.+|application\/octet-stream)$/.test(type)) return this.json(res, 400, googleError(400, "mediaTypeNotSupported", `${type} is not a video`))
    const parts = (url.searchParams.get("part") ?? "").split(",").filter((one) => one !== "")
    const metadata = JSON.parse(raw) as VideoMetadata
    const { snippet } = metadata
    if (snippet === undefined || snippet.title === undefined || snippet.title.trim() === "" || Array.from(snippet.title).length > 100 || /[<>]/.test(snippet.title)) {
      return this.json(res, 400, googleError(400, "invalidTitle", "The request metadata specifies an invalid or empty video title."))
    }
    if (Buffer.byteLength(snippet.description ?? "", "utf8") > 5000 || /[<>]/.test(snippet.description ?? "")) {
      return this.json(res, 400, googleError(400, "invalidDescription", "The request metadata specifies an invalid video description."))
    }
    if (snippet.categoryId !== undefined && !categories.has(snippet.categoryId)) {
      return this.json(res, 400, googleError(400, "invalidCategoryId", "The snippet.categoryId property specifies an invalid category ID."))
    }
    const privacy = metadata.status?.privacyStatus
    if (privacy !== undefined && !["public", "unlisted", "private"].includes(privacy)) {
      return this.json(res, 400, googleError(400, "invalidVideoMetadata", "The request metadata is invalid."))
    }
    for (const part of Object.keys(metadata)) {
      if (!parts.includes(part)) return this.json(res, 400, googleError(400, "unexpectedPart", `The request body has part ${part} the part parameter does not name.`))
    }
    if (!this.spend(costs.insert, res)) return
    const session: Session = { id: randomBytes(16).toString("base64url"), total, metadata, parts, received: [], bytes: 0, video: null, gone: false }
    this.sessions.set(session.id, session)
    res.writeHead(200, {
      location: `${this.base}/upload/youtube/v3/videos?uploadType=resumable&upload_id=${session.id}`,
      "x-guploader-uploadid": session.id,
      "content-length": "0"
    })
    res.end()
  }

  private videoResource(video: FakeVideo) {
    return {
      kind: "youtube#video",
      id: video.id,
      snippet: { publishedAt: video.publishedAt, channelId: this.channel.id, title: video.metadata.snippet.title, description: video.metadata.snippet.description, categoryId: video.metadata.snippet.categoryId ?? "22" },
      status: {
        uploadStatus: video.uploadStatus,
        ...(video.rejectionReason === null ? {} : { rejectionReason: video.rejectionReason }),
        privacyStatus: video.metadata.status?.privacyStatus ?? "public",
        ...(video.metadata.status?.containsSyntheticMedia === undefined ? {} : { containsSyntheticMedia: video.metadata.status.containsSyntheticMedia })
      }
    }
  }

  private progress(session: Session, res: ServerResponse) {
    if (session.video !== null) return this.json(res, 200, this.videoResource(session.video))
    res.writeHead(308, session.bytes === 0 ? { "content-length": "0" } : { range: `bytes=0-${session.bytes - 1}`, "content-length": "0" })
    res.end()
  }

  private async uploadChunk(url: URL, req: IncomingMessage, res: ServerResponse) {
    const session = this.sessions.get(url.searchParams.get("upload_id") ?? "")
    const range = String(req.headers["content-range"] ?? "")
    this.uploadRanges.push(range)
    if (session === undefined || session.gone) {
      await this.body(req)
      return this.json(res, 404, googleError(404, "notFound", "The upload session was not found or has expired.", "global"))
    }
    const probe = /^bytes \*\/(\d+)$/.exec(range)
    if (probe !== null) {
      await this.body(req)
      return this.progress(session, res)
    }
    const chunk = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range)
    if (chunk === null || Number(chunk[3]) !== session.total) {
      await this.body(req)
      return this.json(res, 400, googleError(400, "badContent", `Content-Range ${range} does not describe this upload`))
    }
    if (this.dropChunks > 0) {
      this.dropChunks--
      req.resume()
      return res.socket?.destroy()
    }
    const body = await this.body(req)
    const first = Number(chunk[1])
    const last = Number(chunk[2])
    if (session.video !== null) return this.progress(session, res)
    if (first !== session.bytes || body.length !== last - first + 1) return this.progress(session, res)
    if (last + 1 < session.total && body.length % chunkUnit !== 0) {
      return this.json(res, 400, googleError(400, "badContent", "A chunk other than the last must be a multiple of 256 KiB"))
    }
    session.received.push(body)
    session.bytes += body.length
    if (session.bytes < session.total) return this.progress(session, res)
    const video: FakeVideo = {
      id: videoId(),
      metadata: session.metadata,
      bytes: Buffer.concat(session.received),
      publishedAt: new Date().toISOString(),
      uploadStatus: this.rejectNextAs === null ? "uploaded" : "rejected",
      rejectionReason: this.rejectNextAs,
      reads: 0,
      thumbnail: null,
      deleted: false,
      statistics: { ...this.newVideoStatistics }
    }
    this.rejectNextAs = null
    session.video = video
    this.videos.push(video)
    if (this.hangUpload) {
      this.hangUpload = false
      this.hung.push(res)
      return
    }
    return this.json(res, 201, this.videoResource(video))
  }

  private listVideos(url: URL, grant: Grant, res: ServerResponse) {
    if (!this.granted(grant, readScopes, res) || !this.spend(costs.list, res)) return
    const ids = (url.searchParams.get("id") ?? "").split(",")
    const parts = (url.searchParams.get("part") ?? "").split(",")
    const items = this.videos.filter((video) => !video.deleted && ids.includes(video.id)).map((video) => {
      // Processing takes a few reads, then the video is processed (a rejected one stays so).
      video.reads++
      if (video.uploadStatus === "uploaded" && video.reads > (this.options.processingReads ?? 1)) video.uploadStatus = "processed"
      const resource = this.videoResource(video)
      return {
        kind: resource.kind,
        id: resource.id,
        ...(parts.includes("snippet") ? { snippet: resource.snippet } : {}),
        ...(parts.includes("status") ? { status: resource.status } : {}),
        ...(parts.includes("statistics")
          ? {
            statistics: {
              viewCount: String(video.statistics.viewCount),
              likeCount: String(video.statistics.likeCount),
              favoriteCount: "0",
              commentCount: String(video.statistics.commentCount)
            }
          }
          : {}),
        ...(parts.includes("processingDetails")
          ? { processingDetails: { processingStatus: video.uploadStatus === "uploaded" ? "processing" : video.uploadStatus === "processed" ? "succeeded" : "failed" } }
          : {})
      }
    })
    return this.json(res, 200, { kind: "youtube#videoListResponse", items, pageInfo: { totalResults: items.length, resultsPerPage: items.length } })
  }

  private deleteVideo(url: URL, grant: Grant, res: ServerResponse) {
    if (!this.granted(grant, manageScopes, res) || !this.spend(costs.delete, res)) return
    const video = this.videos.find((one) => one.id === url.searchParams.get("id") && !one.deleted)
    if (video === undefined) {
      return this.json(res, 404, googleError(404, "videoNotFound", "The video that you are trying to delete cannot be found.", "youtube.video"))
    }
    video.deleted = true
    res.writeHead(204)
    res.end()
  }

  private async setThumbnail(url: URL, req: IncomingMessage, grant: Grant, res: ServerResponse) {
    const body = await this.body(req)
    if (!this.granted(grant, uploadScopes, res) || !this.spend(costs.thumbnail, res)) return
    const video = this.videos.find((one) => one.id === url.searchParams.get("videoId") && !one.deleted)
    if (video === undefined) return this.json(res, 404, googleError(404, "videoNotFound", "The video that you are trying to update cannot be found.", "youtube.thumbnail"))
    const jpeg = body[0] === 0xff && body[1] === 0xd8
    const png = body.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]))
    if (!jpeg && !png) return this.json(res, 400, googleError(400, "invalidImage", "The provided image content is invalid.", "youtube.thumbnail"))
    if (body.length > 2 * 1024 * 1024) return this.json(res, 400, googleError(400, "mediaBodyTooLarge", "The thumbnail is larger than 2 MB.", "youtube.thumbnail"))
    video.thumbnail = body
    return this.json(res, 200, { kind: "youtube#thumbnailSetResponse", items: [{ default: { url: `https://i.ytimg.com/vi/${video.id}/default.jpg`, width: 120, height: 90 } }] })
  }

  private report(url: URL, grant: Grant, res: ServerResponse) {
    if (!this.granted(grant, analyticsScopes, res)) return
    const video = /^video==(.+)$/.exec(url.searchParams.get("filters") ?? "")?.[1]
    const metrics = (url.searchParams.get("metrics") ?? "").split(",")
    const found = this.videos.find((one) => one.id === video)
    if (url.searchParams.get("ids") !== "channel==MINE" || url.searchParams.get("startDate") === null || url.searchParams.get("endDate") === null) {
      return this.json(res, 400, googleError(400, "badRequest", "ids, startDate and endDate are required", "global"))
    }
    const value = (metric: string) => found === undefined ? 0 : metric === "shares" ? found.statistics.shares : metric === "views" ? found.statistics.viewCount : 0
    return this.json(res, 200, {
      kind: "youtubeAnalytics#resultTable",
      columnHeaders: metrics.map((name) => ({ name, columnType: "METRIC", dataType: "INTEGER" })),
      rows: found === undefined ? [] : [metrics.map(value)]
    })
  }
}
