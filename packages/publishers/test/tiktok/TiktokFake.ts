/**
 * A fake of TikTok on loopback at its documented paths: Login Kit's consent page
 * (/v2/auth/authorize/) and token endpoint (/v2/oauth/token/, authorization_code and
 * refresh_token grants, refresh tokens rotated), and open.tiktokapis.com's /v2/user/info/,
 * the Content Posting API (/v2/post/publish/creator_info/query/, /video/init/, /content/init/,
 * /status/fetch/, the FILE_UPLOAD upload URL taking Content-Range chunks) and the Display API's
 * /v2/video/list/ and /v2/video/query/. Every answer is in TikTok's envelope `{ data, error:
 * { code, message, log_id } }`. A publish goes PROCESSING_UPLOAD (until its chunks are in) or
 * PROCESSING_DOWNLOAD (PULL_FROM_URL: the fake downloads the URL, as TikTok does) to
 * PUBLISH_COMPLETE, or FAILED with a fail_reason; a public post gets its int64 post id, written
 * as a bare JSON number as TikTok writes it. An unaudited app may post SELF_ONLY only.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { FakeControls, InjectedReply } from "../kit/publisherContract.js"

export interface TiktokFakeOptions {
  readonly clientKey: string
  readonly clientSecret: string
  readonly user?: { readonly openId: string; readonly username: string; readonly displayName?: string }
  /** Whether TikTok has audited the app (else: SELF_ONLY posts only). */
  readonly audited?: boolean
  /** URL prefixes verified for PULL_FROM_URL (none: every pull is url_ownership_unverified). */
  readonly verifiedUrlPrefixes?: ReadonlyArray<string>
  /** Status reads a publish stays PROCESSING_* before it completes (0: complete at the first read). */
  readonly processingReads?: number
  /** Seconds an access token lives. */
  readonly expiresIn?: number
}

/** What creator_info answers for the creator; tests change it. */
export interface CreatorSettings {
  privacyLevelOptions: Array<string>
  commentDisabled: boolean
  duetDisabled: boolean
  stitchDisabled: boolean
  maxVideoPostDurationSec: number
  /** An error creator_info answers with HTTP 200 (spam_risk_user_banned_from_posting, reached_active_user_cap). */
  refusal: string | null
}

export interface FakePublish {
  readonly publishId: string
  readonly kind: "video" | "photo"
  readonly postInfo: Readonly<Record<string, unknown>>
  readonly sourceInfo: Readonly<Record<string, unknown>>
  readonly createdAt: number
  status: "PROCESSING_UPLOAD" | "PROCESSING_DOWNLOAD" | "PUBLISH_COMPLETE" | "FAILED"
  failReason: string | null
  /** The int64 id of a public post once complete; null for private posts. */
  postId: string | null
  /** FILE_UPLOAD: the bytes received so far, and the plan the init gave. */
  received: Array<Buffer>
  uploadedBytes: number
  plan: { readonly size: number; readonly chunkSize: number; readonly count: number } | null
  /** Photos or the video downloaded (PULL_FROM_URL), or the uploaded video's bytes. */
  media: Array<Buffer>
  reads: number
}

interface Grant {
  readonly openId: string
  scopes: Set<string>
  access: string
  refresh: string
  accessValid: boolean
  refreshValid: boolean
}

const allScopes = ["user.info.basic", "user.info.profile", "user.info.stats", "video.publish", "video.upload", "video.list"]
const privacyLevels = ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"]
const MB = 1_000_000

const digits = (count: number) => {
  let out = String(1 + Math.floor(Math.random() * 9))
  while (out.length < count) out += String(Math.floor(Math.random() * 10))
  return out
}

const logId = () => `2026112414${randomBytes(12).toString("hex").toUpperCase()}`

/** TikTok's envelope for a status the fake is told to answer without a body. */
const defaultFault = (status: number) =>
  status === 429
    ? { code: "rate_limit_exceeded", message: "The API rate limit was exceeded. Please try again later." }
    : status === 401
    ? { code: "access_token_invalid", message: "The access token is invalid or not found in the request." }
    : status >= 500
    ? { code: "internal_error", message: "Something went wrong. Please try again later." }
    : { code: "invalid_params", message: `HTTP ${status}` }

export class TiktokFake {
  readonly publishes: Array<FakePublish> = []
  /** Every API call, as `METHOD /path?query`. */
  readonly calls: Array<string> = []
  /** Token endpoint calls, by grant. */
  readonly tokenCalls: Array<string> = []
  /** The counts the Display API reports, by post id, and for any other public post. */
  readonly counts = new Map<string, { view_count: number; like_count: number; comment_count: number; share_count: number }>()
  defaultCounts = { view_count: 0, like_count: 0, comment_count: 0, share_count: 0 }
  readonly user: { readonly openId: string; readonly username: string; readonly displayName: string }
  readonly creator: CreatorSettings
  /** The fail_reason the next publish ends with (once). */
  failNextPublish: string | null = null
  /** Chunk PUTs still to answer with this status before taking them (a 5xx: TikTok failing on a chunk). */
  failChunks: { count: number; status: number } = { count: 0, status: 503 }
  /** The next init is carried out (the publish exists) and never answered. */
  hangNextInit = false
  private readonly grants: Array<Grant> = []
  private readonly codes = new Map<string, { redirectUri: string; scopes: Set<string> }>()
  private readonly faults: Array<InjectedReply> = []
  private hangStatus = false
  private readonly hung: Array<ServerResponse> = []
  private server: Server | undefined
  private base = ""

  constructor(readonly options: TiktokFakeOptions) {
    this.user = { displayName: "Ada", ...(options.user ?? { openId: "-000OhhAZ3cO2FhdeBjxbYmJPvvbPvxBQn1Z", username: "ada.lovelace" }) }
    this.creator = {
      privacyLevelOptions: ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"],
      commentDisabled: false,
      duetDisabled: false,
      stitchDisabled: false,
      maxVideoPostDurationSec: 600,
      refusal: null
    }
  }

  get url(): string {
    return this.base
  }

  start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) this.envelope(res, 500, {}, { code: "internal_error", message: String(error) })
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

  failNext(fault: InjectedReply): void {
    this.faults.push(fault)
  }

  /**
   * The next status fetch is carried out (the publish has completed) and never answered: the
   * publish's outcome is unknown to the caller, which holds its publish_id.
   */
  hangNext(): void {
    this.hangStatus = true
  }

  /** Every access token is refused (access_token_invalid); refresh tokens still work. */
  expireToken(): void {
    for (const grant of this.grants) grant.accessValid = false
  }

  /** The user removed the app: every token dead, refresh included. */
  revokeGrant(): void {
    for (const grant of this.grants) {
      grant.accessValid = false
      grant.refreshValid = false
    }
  }

  revokeScope(scope: string): void {
    for (const grant of this.grants) grant.scopes.delete(scope)
  }

  /** Publishes TikTok has completed. */
  livePosts(): ReadonlyArray<FakePublish> {
    return this.publishes.filter((publish) => publish.status === "PUBLISH_COMPLETE")
  }

  textOf(publish: FakePublish): string | null {
    const field = publish.kind === "photo" ? publish.postInfo["description"] : publish.postInfo["title"]
    return typeof field === "string" ? field : null
  }

  /** A publish by the id a receipt carries: the public post id, or the publish_id of a post with none. */
  find(id: string): FakePublish | undefined {
    return this.publishes.find((publish) => publish.postId === id || publish.publishId === id)
  }

  controls(): FakeControls {
    return {
      failNext: (reply) => this.failNext(reply),
      hangNext: () => this.hangNext(),
      expireToken: () => this.expireToken(),
      revokeGrant: () => this.revokeGrant(),
      revokeScope: (scope) => this.revokeScope(scope),
      publishScope: "video.publish",
      posts: () => this.livePosts().map((publish) => ({ id: publish.postId ?? publish.publishId, text: this.textOf(publish), media: publish.media.length })),
      refreshes: () => this.tokenCalls.filter((grant) => grant === "refresh_token").length
    }
  }

  /** Follows a consent URL as the user would, approving it; answers where TikTok redirects. */
  async consent(authorizeUrl: string): Promise<URL> {
    const response = await fetch(authorizeUrl, { redirect: "manual" })
    const location = response.headers.get("location")
    if (response.status !== 302 || location === null) throw new Error(`consent answered ${response.status}: ${await response.text()}`)
    return new URL(location)
  }

  // -------------------------------------------------------------------------------------------

  private envelope(res: ServerResponse, status: number, data: unknown, error: { code: string; message: string } = { code: "ok", message: "" }, headers: Record<string, string> = {}) {
    res.writeHead(status, { "content-type": "application/json; charset=UTF-8", ...headers })
    // Post ids are int64 and TikTok writes them as bare numbers: the fake keeps their digits.
    const text = JSON.stringify({ data, error: { ...error, log_id: logId() } }).replace(/"publicaly_available_post_id":\["(\d+)"\]/g, "\"publicaly_available_post_id\":[$1]")
    res.end(text)
  }

  private refuse(res: ServerResponse, status: number, code: string, message: string) {
    return this.envelope(res, status, {}, { code, message })
  }

  private async body(req: IncomingMessage): Promise<Buffer> {
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", this.base)
    const path = url.pathname
    if (path === "/v2/auth/authorize/" && req.method === "GET") return this.authorize(url, res)
    if (path === "/v2/oauth/token/" && req.method === "POST") return this.token(new URLSearchParams((await this.body(req)).toString("utf8")), res)
    this.calls.push(`${req.method} ${path}${url.search}`)
    const raw = await this.body(req)
    const fault = this.faults.shift()
    if (fault !== undefined) {
      if (typeof fault.body === "string") {
        res.writeHead(fault.status, { ...fault.headers })
        return res.end(fault.body)
      }
      if (fault.body !== undefined) {
        res.writeHead(fault.status, { "content-type": "application/json", ...fault.headers })
        return res.end(JSON.stringify(fault.body))
      }
      return this.envelope(res, fault.status, {}, defaultFault(fault.status), fault.headers)
    }
    if (path.startsWith("/upload/") && req.method === "PUT") return this.chunk(path.slice("/upload/".length), req, raw, res)
    const grant = this.grantOf(req)
    if (grant === undefined) return this.refuse(res, 401, "access_token_invalid", "The access token is invalid or not found in the request.")
    const json = (): Record<string, unknown> => {
      try {
        return raw.length === 0 ? {} : JSON.parse(raw.toString("utf8")) as Record<string, unknown>
      } catch {
        return { unreadable: true }
      }
    }
    const needs = (scope: string) => {
      if (grant.scopes.has(scope)) return true
      this.refuse(res, 401, "scope_not_authorized", `The user did not authorize the scope required for completing this request (${scope}).`)
      return false
    }
    if (path === "/v2/user/info/" && req.method === "GET") {
      if (!needs("user.info.basic")) return
      return this.envelope(res, 200, { user: { open_id: grant.openId, display_name: this.user.displayName } })
    }
    if (req.method !== "POST") return this.refuse(res, 404, "invalid_params", `No ${req.method} ${path}`)
    if (path === "/v2/post/publish/creator_info/query/") {
      if (!needs("video.publish")) return
      if (this.creator.refusal !== null) return this.refuse(res, 200, this.creator.refusal, "The creator cannot post now.")
      return this.envelope(res, 200, {
        creator_avatar_url: `${this.base}/avatar.jpeg`,
        creator_username: this.user.username,
        creator_nickname: this.user.displayName,
        privacy_level_options: this.creator.privacyLevelOptions,
        comment_disabled: this.creator.commentDisabled,
        duet_disabled: this.creator.duetDisabled,
        stitch_disabled: this.creator.stitchDisabled,
        max_video_post_duration_sec: this.creator.maxVideoPostDurationSec
      })
    }
    if (path === "/v2/post/publish/video/init/" || path === "/v2/post/publish/content/init/") {
      if (!needs("video.publish")) return
      const answer = this.hangNextInit ? this.swallow(res) : res
      this.hangNextInit = false
      return path === "/v2/post/publish/video/init/" ? this.videoInit(json(), answer) : this.photoInit(json(), answer)
    }
    if (path === "/v2/post/publish/status/fetch/") return needs("video.publish") ? this.status(json(), res) : undefined
    if (path === "/v2/video/list/") {
      if (!needs("video.list")) return
      const videos = this.livePosts().filter((publish) => publish.postId !== null).slice().reverse().slice(0, 20).map((publish) => this.video(publish))
      return this.envelope(res, 200, { videos, cursor: 0, has_more: false })
    }
    if (path === "/v2/video/query/") {
      if (!needs("video.list")) return
      const ids = ((json()["filters"] as { video_ids?: Array<string> } | undefined)?.video_ids ?? [])
      if (ids.length > 20) return this.refuse(res, 400, "invalid_params", "video_ids takes at most 20 ids")
      const videos = this.livePosts().filter((publish) => publish.postId !== null && ids.includes(publish.postId)).map((publish) => ({
        ...this.video(publish),
        ...(this.counts.get(publish.postId!) ?? this.defaultCounts)
      }))
      return this.envelope(res, 200, { videos })
    }
    return this.refuse(res, 404, "invalid_params", `No ${req.method} ${path}`)
  }

  /** A response whose answer is never sent (the connection held open until the fake stops). */
  private swallow(res: ServerResponse): ServerResponse {
    this.hung.push(res)
    return new Proxy(res, {
      get: (target, name) => name === "writeHead" || name === "end" ? () => target : Reflect.get(target, name, target)
    })
  }

  private grantOf(req: IncomingMessage) {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
    return this.grants.find((grant) => grant.access === bearer && grant.accessValid)
  }

  private video(publish: FakePublish) {
    return {
      id: publish.postId!,
      title: publish.postInfo["title"],
      video_description: this.textOf(publish),
      create_time: Math.floor(publish.createdAt / 1000),
      share_url: `https://www.tiktok.com/@${this.user.username}/video/${publish.postId!}?utm_source=fake`
    }
  }

  /** What both kinds of post check of post_info: the audience, and branded content not private. */
  private postInfoRefusal(info: Record<string, unknown>): [number, string, string] | null {
    const privacy = info["privacy_level"]
    if (typeof privacy !== "string" || !privacyLevels.includes(privacy)) return [400, "invalid_params", "privacy_level is required"]
    if (!this.creator.privacyLevelOptions.includes(privacy)) return [400, "privacy_level_option_mismatch", `privacy_level ${privacy} is not one of the creator's options`]
    if ((this.options.audited ?? false) === false && privacy !== "SELF_ONLY") {
      return [403, "unaudited_client_can_only_post_to_private_accounts", "Unaudited clients can only post to private accounts"]
    }
    if (info["brand_content_toggle"] === true && privacy === "SELF_ONLY") return [400, "invalid_params", "Branded content cannot be private"]
    if (info["brand_content_toggle"] !== undefined && typeof info["brand_content_toggle"] !== "boolean") return [400, "invalid_params", "brand_content_toggle must be a boolean"]
    for (const [key, off] of [["disable_comment", this.creator.commentDisabled], ["disable_duet", this.creator.duetDisabled], ["disable_stitch", this.creator.stitchDisabled]] as const) {
      if (off && info[key] === false) return [400, "invalid_params", `${key} must be true: the creator has it off`]
    }
    return null
  }

  private publishId(kind: "file" | "url") {
    return `v_pub_${kind}~v2-1.${digits(19)}`
  }

  private async videoInit(body: Record<string, unknown>, res: ServerResponse) {
    const info = (body["post_info"] ?? {}) as Record<string, unknown>
    const source = (body["source_info"] ?? {}) as Record<string, unknown>
    const title = info["title"]
    if (title !== undefined && (typeof title !== "string" || title.length > 2200)) return this.refuse(res, 400, "invalid_params", "title takes at most 2200 UTF-16 runes")
    const refusal = this.postInfoRefusal(info)
    if (refusal !== null) return this.refuse(res, ...refusal)
    const cover = info["video_cover_timestamp_ms"]
    if (cover !== undefined && (typeof cover !== "number" || cover < 0)) return this.refuse(res, 400, "invalid_params", "video_cover_timestamp_ms must be a non-negative number")
    const publish: FakePublish = {
      publishId: "",
      kind: "video",
      postInfo: info,
      sourceInfo: source,
      createdAt: Date.now(),
      status: "PROCESSING_UPLOAD",
      failReason: null,
      postId: null,
      received: [],
      uploadedBytes: 0,
      plan: null,
      media: [],
      reads: 0
    }
    if (source["source"] === "FILE_UPLOAD") {
      const size = Number(source["video_size"])
      const chunkSize = Number(source["chunk_size"])
      const count = Number(source["total_chunk_count"])
      // Media Transfer Guide: 5 to 64 MB a chunk (a file under 5 MB is one chunk of its size), 1 to 1000 chunks, count = floor(size / chunk).
      const valid = Number.isInteger(size) && size > 0 && Number.isInteger(chunkSize) && Number.isInteger(count) &&
        count >= 1 && count <= 1000 && count === Math.max(1, Math.floor(size / chunkSize)) &&
        (size < 5 * MB ? chunkSize === size && count === 1 : chunkSize >= 5 * MB && chunkSize <= 64 * MB) &&
        size - (count - 1) * chunkSize <= 128 * MB
      if (!valid) return this.refuse(res, 400, "invalid_params", "The chunk size is invalid")
      const created = { ...publish, publishId: this.publishId("file"), plan: { size, chunkSize, count } }
      this.publishes.push(created)
      return this.envelope(res, 200, { publish_id: created.publishId, upload_url: `${this.base}/upload/${encodeURIComponent(created.publishId)}` })
    }
    if (source["source"] === "PULL_FROM_URL") {
      const url = source["video_url"]
      if (typeof url !== "string") return this.refuse(res, 400, "invalid_params", "video_url is required")
      if (!(this.options.verifiedUrlPrefixes ?? []).some((prefix) => url.startsWith(prefix))) {
        return this.refuse(res, 403, "url_ownership_unverified", "The domain or URL prefix of video_url is not verified")
      }
      const created: FakePublish = { ...publish, publishId: this.publishId("url"), status: "PROCESSING_DOWNLOAD" }
      this.publishes.push(created)
      const downloaded = await this.download(url)
      if (downloaded === null) this.fail(created, "video_pull_failed")
      else created.media.push(downloaded)
      return this.envelope(res, 200, { publish_id: created.publishId })
    }
    return this.refuse(res, 400, "invalid_params", "source_info.source must be FILE_UPLOAD or PULL_FROM_URL")
  }

  private async photoInit(body: Record<string, unknown>, res: ServerResponse) {
    const info = (body["post_info"] ?? {}) as Record<string, unknown>
    const source = (body["source_info"] ?? {}) as Record<string, unknown>
    if (body["media_type"] !== "PHOTO") return this.refuse(res, 400, "invalid_params", "media_type must be PHOTO")
    if (body["post_mode"] !== "DIRECT_POST" && body["post_mode"] !== "MEDIA_UPLOAD") return this.refuse(res, 400, "invalid_params", "post_mode must be DIRECT_POST or MEDIA_UPLOAD")
    if (typeof info["title"] === "string" && info["title"].length > 90) return this.refuse(res, 400, "invalid_params", "title takes at most 90 UTF-16 runes")
    if (typeof info["description"] === "string" && info["description"].length > 4000) return this.refuse(res, 400, "invalid_params", "description takes at most 4000 UTF-16 runes")
    for (const field of ["is_aigc", "disable_duet", "disable_stitch", "video_cover_timestamp_ms"]) {
      if (field in info) return this.refuse(res, 400, "invalid_params", `${field} is not a field of photo posts`)
    }
    const refusal = this.postInfoRefusal(info)
    if (refusal !== null) return this.refuse(res, ...refusal)
    if (source["source"] !== "PULL_FROM_URL") return this.refuse(res, 400, "invalid_params", "photos are sent by PULL_FROM_URL only")
    const images = source["photo_images"]
    if (!Array.isArray(images) || images.length < 1 || images.length > 35 || !images.every((url) => typeof url === "string")) {
      return this.refuse(res, 400, "invalid_params", "photo_images takes 1 to 35 URLs")
    }
    const cover = Number(source["photo_cover_index"] ?? 0)
    if (!Number.isInteger(cover) || cover < 0 || cover >= images.length) return this.refuse(res, 400, "invalid_params", "photo_cover_index is out of range")
    if (!images.every((url: string) => (this.options.verifiedUrlPrefixes ?? []).some((prefix) => url.startsWith(prefix)))) {
      return this.refuse(res, 403, "url_ownership_unverified", "The domain or URL prefix of photo_images is not verified")
    }
    const publish: FakePublish = {
      publishId: `p_pub_url~v2.${digits(19)}`,
      kind: "photo",
      postInfo: info,
      sourceInfo: source,
      createdAt: Date.now(),
      status: "PROCESSING_DOWNLOAD",
      failReason: null,
      postId: null,
      received: [],
      uploadedBytes: 0,
      plan: null,
      media: [],
      reads: 0
    }
    this.publishes.push(publish)
    for (const url of images as Array<string>) {
      const downloaded = await this.download(url)
      if (downloaded === null) {
        this.fail(publish, "photo_pull_failed")
        break
      }
      publish.media.push(downloaded)
    }
    return this.envelope(res, 200, { publish_id: publish.publishId })
  }

  private async download(url: string): Promise<Buffer | null> {
    const answer = await fetch(url).catch(() => null)
    if (answer === null || !answer.ok) return null
    const bytes = Buffer.from(await answer.arrayBuffer())
    return bytes.length === 0 ? null : bytes
  }

  private fail(publish: FakePublish, reason: string) {
    publish.status = "FAILED"
    publish.failReason = reason
  }

  private chunk(id: string, req: IncomingMessage, bytes: Buffer, res: ServerResponse) {
    if (this.failChunks.count > 0) {
      this.failChunks.count--
      res.writeHead(this.failChunks.status)
      return res.end()
    }
    const publish = this.publishes.find((candidate) => candidate.publishId === decodeURIComponent(id))
    const done = (status: number) => {
      res.writeHead(status)
      res.end()
    }
    if (publish === undefined || publish.plan === null) return done(404)
    if (Date.now() - publish.createdAt > 60 * 60 * 1000) return done(403)
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(req.headers["content-range"] ?? "")
    const type = req.headers["content-type"] ?? ""
    if (!["video/mp4", "video/quicktime", "video/webm"].includes(type)) return done(400)
    if (range === null) return done(400)
    const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])]
    const index = publish.received.length
    const expectedLast = index === publish.plan.count - 1 ? publish.plan.size - 1 : (index + 1) * publish.plan.chunkSize - 1
    if (total !== publish.plan.size || first !== publish.uploadedBytes || last !== expectedLast || bytes.length !== last - first + 1) return done(416)
    publish.received.push(bytes)
    publish.uploadedBytes = last + 1
    if (publish.received.length < publish.plan.count) return done(206)
    publish.media.push(Buffer.concat(publish.received))
    return done(201)
  }

  /** Moves a publish on as TikTok would at a status read. */
  private advance(publish: FakePublish) {
    if (publish.status === "PROCESSING_UPLOAD" && publish.media.length === 0) return
    if (publish.status !== "PROCESSING_UPLOAD" && publish.status !== "PROCESSING_DOWNLOAD") return
    if (publish.reads++ < (this.options.processingReads ?? 0)) return
    if (this.failNextPublish !== null) {
      this.fail(publish, this.failNextPublish)
      this.failNextPublish = null
      return
    }
    publish.status = "PUBLISH_COMPLETE"
    if (publish.postInfo["privacy_level"] === "PUBLIC_TO_EVERYONE") publish.postId = digits(19)
  }

  private status(body: Record<string, unknown>, res: ServerResponse) {
    const publish = this.publishes.find((candidate) => candidate.publishId === body["publish_id"])
    if (publish === undefined) return this.refuse(res, 400, "invalid_params", "publish_id does not exist")
    this.advance(publish)
    if (this.hangStatus && publish.status === "PUBLISH_COMPLETE") {
      this.hangStatus = false
      this.hung.push(res)
      return
    }
    return this.envelope(res, 200, {
      status: publish.status,
      ...(publish.failReason === null ? {} : { fail_reason: publish.failReason }),
      ...(publish.postId === null ? {} : { publicaly_available_post_id: [publish.postId] }),
      ...(publish.plan === null ? { downloaded_bytes: publish.media.reduce((sum, item) => sum + item.length, 0) } : { uploaded_bytes: publish.uploadedBytes })
    })
  }

  // Login Kit ---------------------------------------------------------------------------------

  private authorize(url: URL, res: ServerResponse) {
    const query = url.searchParams
    const refuse = (message: string) => {
      res.writeHead(400, { "content-type": "text/plain" })
      res.end(message)
    }
    if (query.get("client_key") !== this.options.clientKey) return refuse("client_key is not a registered app")
    const redirectUri = query.get("redirect_uri")
    // Login Kit for Web takes https redirect URIs; the loopback http ones of Login Kit for Desktop stand in for a test's server.
    if (redirectUri === null || !/^(https:\/\/|http:\/\/(127\.0\.0\.1|localhost)[:/])/.test(redirectUri)) return refuse("redirect_uri must be a registered https URI")
    if (query.get("response_type") !== "code") return refuse("response_type must be code")
    const scopes = new Set((query.get("scope") ?? "").split(","))
    for (const scope of scopes) if (!allScopes.includes(scope)) return refuse(`invalid_scope: ${scope}`)
    if (!scopes.has("user.info.basic")) return refuse("user.info.basic is required")
    const code = randomBytes(24).toString("base64url")
    this.codes.set(code, { redirectUri, scopes })
    const target = new URL(redirectUri)
    target.searchParams.set("code", code)
    target.searchParams.set("scopes", [...scopes].join(","))
    target.searchParams.set("state", query.get("state") ?? "")
    res.writeHead(302, { location: target.toString() })
    return res.end()
  }

  /** The token endpoint; a refusal is `{ error, error_description, log_id }` (OAuth's error codes). */
  private token(form: URLSearchParams, res: ServerResponse) {
    const grantType = form.get("grant_type") ?? ""
    this.tokenCalls.push(grantType)
    const refuse = (error: string, description: string) => {
      res.writeHead(400, { "content-type": "application/json" })
      res.end(JSON.stringify({ error, error_description: description, log_id: logId() }))
    }
    if (form.get("client_key") !== this.options.clientKey || form.get("client_secret") !== this.options.clientSecret) {
      return refuse("invalid_client", "Client key or secret is incorrect.")
    }
    let grant: Grant
    if (grantType === "authorization_code") {
      const code = this.codes.get(form.get("code") ?? "")
      this.codes.delete(form.get("code") ?? "")
      if (code === undefined || code.redirectUri !== form.get("redirect_uri")) return refuse("invalid_grant", "Authorization code is expired.")
      grant = { openId: this.user.openId, scopes: code.scopes, access: "", refresh: "", accessValid: true, refreshValid: true }
      this.grants.push(grant)
    } else if (grantType === "refresh_token") {
      const found = this.grants.find((candidate) => candidate.refresh === form.get("refresh_token") && candidate.refreshValid)
      if (found === undefined) return refuse("invalid_grant", "Refresh token is invalid or expired.")
      grant = found
    } else {
      return refuse("unsupported_grant_type", `grant_type ${grantType} is not supported`)
    }
    grant.access = `act.${randomBytes(24).toString("base64url")}`
    // Refresh tokens rotate: the one just used stops working.
    grant.refresh = `rft.${randomBytes(24).toString("base64url")}`
    grant.accessValid = true
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({
      open_id: grant.openId,
      scope: [...grant.scopes].join(","),
      access_token: grant.access,
      expires_in: this.options.expiresIn ?? 86400,
      refresh_token: grant.refresh,
      refresh_expires_in: 31536000,
      token_type: "Bearer"
    }))
  }
}
