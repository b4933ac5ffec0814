/**
 * A fake of Facebook Pages on loopback at its documented paths, under the pinned Graph version:
 * Facebook Login (test/meta/FacebookLoginFake: the dialog, the token endpoint, /me/accounts),
 * and with a Page token: /me, POST /{page}/feed (message, link, attached_media), POST
 * /{page}/photos (the bytes as `source`, published or not), the resumable upload of POST
 * /{page}/videos (start, transfer at the offsets the fake names, finish), reels and video
 * stories (POST /{page}/video_reels and /video_stories start → the bytes to the upload URL the
 * fake hands out, with `Authorization: OAuth`, `offset` and `file_size` → finish), POST
 * /{page}/photo_stories, GET /{id}?fields=permalink_url, GET /{page}/published_posts, GET
 * /{post}/insights, GET /{video}/video_insights, comments and shares on the post, DELETE /{id}.
 * Refusals in Meta's envelope (error.code, error_subcode, error_user_msg, fbtrace_id).
 */
import type { FakeControls } from "../kit/publisherContract.js"
import { FacebookLoginFake, type FacebookLoginFakeOptions, type FakePage, type PageTokenRecord } from "../meta/FacebookLoginFake.js"
import { GraphFakeServer, type GraphReply, type GraphRequest } from "../meta/GraphFakeServer.js"

export interface FacebookFakeOptions {
  readonly clientId: string
  readonly clientSecret: string
  readonly version: string
  readonly pages?: ReadonlyArray<FakePage>
  readonly withheld?: ReadonlyArray<string>
  /** Bytes per transfer the resumable /videos upload asks for. */
  readonly chunkBytes?: number
}

export type FakePostKind = "feed" | "photo" | "video" | "reel" | "story"

export interface FakeFacebookPost {
  readonly id: string
  readonly pageId: string
  readonly kind: FakePostKind
  readonly message: string | null
  readonly link: string | null
  /** The media attached, each as the fake received it. */
  readonly media: ReadonlyArray<{ readonly kind: "photo" | "video"; readonly bytes: number; readonly altText: string | null }>
  readonly createdAt: number
  deleted: boolean
}

interface FakePhoto {
  readonly id: string
  readonly pageId: string
  readonly bytes: number
  readonly altText: string | null
  used: boolean
}

interface FakeVideo {
  readonly id: string
  readonly pageId: string
  readonly edge: "videos" | "video_reels" | "video_stories"
  readonly size: number
  received: Buffer
  readonly session: string
}

export const facebookPermissions = ["pages_show_list", "pages_read_engagement", "pages_manage_posts", "publish_video", "read_insights", "business_management"]

const digits = (count: number) => {
  let out = String(1 + Math.floor(Math.random() * 9))
  while (out.length < count) out += String(Math.floor(Math.random() * 10))
  return out
}

/** A multipart body's fields and files, read as a web Request reads it. */
const multipart = async (request: GraphRequest) => {
  const data = await new Request(request.url, { method: "POST", headers: { "content-type": String(request.headers["content-type"]) }, body: request.body }).formData()
  const fields: Record<string, string> = {}
  const files: Record<string, Buffer> = {}
  for (const [name, value] of data) {
    if (typeof value === "string") fields[name] = value
    else files[name] = Buffer.from(await value.arrayBuffer())
  }
  return { fields, files }
}

export class FacebookFake {
  readonly login: FacebookLoginFake
  readonly server: GraphFakeServer
  readonly posts: Array<FakeFacebookPost> = []
  /** Insights Facebook would report, by post or video id (metric name → value). */
  readonly insights = new Map<string, Record<string, number | Record<string, number>>>()
  readonly comments = new Map<string, number>()
  private readonly photos = new Map<string, FakePhoto>()
  private readonly videos = new Map<string, FakeVideo>()

  constructor(readonly options: FacebookFakeOptions) {
    this.login = new FacebookLoginFake({
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      version: options.version,
      permissions: facebookPermissions,
      pages: options.pages ?? [{ id: "104000000000001", name: "Acme Bakery", tasks: ["ADVERTISE", "ANALYZE", "CREATE_CONTENT", "MESSAGING", "MODERATE", "MANAGE"] }],
      ...(options.withheld === undefined ? {} : { withheld: options.withheld })
    } satisfies FacebookLoginFakeOptions)
    this.server = new GraphFakeServer((request, reply) => this.handle(request, reply), (request) => this.login.exempt(request))
  }

  get url(): string {
    return this.server.url
  }

  async start(): Promise<this> {
    await this.server.start()
    return this
  }

  stop(): Promise<void> {
    return this.server.stop()
  }

  livePosts(): ReadonlyArray<FakeFacebookPost> {
    return this.posts.filter((post) => !post.deleted)
  }

  controls(): FakeControls {
    return {
      failNext: (reply) => this.server.failNext(reply),
      hangNext: () => this.server.hangNext(),
      expireToken: () => this.login.invalidatePageTokens(),
      revokeGrant: () => this.login.revokeGrant(),
      revokeScope: (scope) => this.login.revokePermission(scope),
      publishScope: "pages_manage_posts",
      posts: () => this.livePosts().map((post) => ({ id: post.id, text: post.message, media: post.media.length })),
      refreshes: () => this.login.tokenCalls.filter((call) => call === "page_token").length
    }
  }

  // -------------------------------------------------------------------------------------------

  private async handle(request: GraphRequest, reply: GraphReply) {
    if (request.parts[0] === "video-upload") return this.rupload(request, reply)
    if (this.login.handles(request)) return this.login.handle(request, reply)
    if (request.version !== this.options.version) return reply.error(400, { message: `Unknown path components: ${request.path}`, code: 2500 })
    const record = this.login.pageToken(request.token)
    if (record === undefined) return reply.invalidToken()
    if (!record.valid || !record.user.valid) {
      return reply.error(400, { message: "Error validating access token: Session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.", code: 190, error_subcode: 460 })
    }
    const [first, second] = request.parts
    const scopes = record.user.scopes
    if (first === "me" && second === undefined && request.method === "GET") return reply.json(200, this.pageView(record.pageId))
    if (first === record.pageId && second !== undefined) {
      const needs = second === "published_posts" ? "pages_read_engagement" : second === "videos" || second === "video_reels" || second === "video_stories" ? "publish_video" : "pages_manage_posts"
      if (!scopes.has(needs) || (needs === "publish_video" && !scopes.has("pages_manage_posts"))) return reply.permission(needs === "publish_video" && scopes.has(needs) ? "pages_manage_posts" : needs)
      if (request.method === "POST" && second === "feed") return this.feed(request, record, reply)
      if (request.method === "POST" && second === "photos") return this.photo(request, record, reply)
      if (request.method === "POST" && second === "videos") return this.videoUpload(request, record, reply)
      if (request.method === "POST" && (second === "video_reels" || second === "video_stories")) return this.ruploadPhase(request, record, second, reply)
      if (request.method === "POST" && second === "photo_stories") return this.photoStory(request, record, reply)
      if (request.method === "GET" && second === "published_posts") {
        const data = this.livePosts().filter((post) => post.pageId === record.pageId && post.kind !== "story").slice().reverse().map((post) => this.postView(post))
        return reply.json(200, { data, paging: { cursors: { before: "", after: "" } } })
      }
    }
    const post = this.livePosts().find((candidate) => candidate.id === first && candidate.pageId === record.pageId)
    if (post === undefined) return reply.unsupported(request.method, first ?? "")
    if (request.method === "GET" && second === undefined) {
      const fields = request.params["fields"] ?? ""
      if (fields.includes("comments")) {
        const shares = this.insights.get(post.id)?.["shares"]
        return reply.json(200, {
          id: post.id,
          comments: { data: [], summary: { order: "ranked", total_count: this.comments.get(post.id) ?? 0, can_comment: true } },
          ...(typeof shares === "number" && shares > 0 ? { shares: { count: shares } } : {})
        })
      }
      return reply.json(200, this.postView(post))
    }
    if (request.method === "GET" && (second === "insights" || second === "video_insights")) {
      if (!scopes.has("read_insights")) return reply.permission("read_insights")
      const isVideo = post.kind === "video" || post.kind === "reel"
      if (post.kind === "story" || (second === "video_insights") !== isVideo) {
        return reply.error(400, { message: "(#100) The value must be a valid insights metric", code: 100 })
      }
      const counts = this.insights.get(post.id) ?? {}
      const names = (request.params["metric"] ?? "").split(",").filter((name) => name !== "")
      for (const name of names) {
        if (name.startsWith("post_impressions")) return reply.error(400, { message: `(#100) The value must be a valid insights metric: ${name}`, code: 100 })
      }
      return reply.json(200, {
        data: names.map((name) => ({ name, period: "lifetime", values: [{ value: counts[name] ?? 0 }], id: `${post.id}/insights/${name}/lifetime` }))
      })
    }
    if (request.method === "DELETE" && second === undefined) {
      if (!scopes.has("pages_manage_posts")) return reply.permission("pages_manage_posts")
      if (post.kind === "story") return reply.error(400, { message: "(#100) Stories cannot be deleted through the API", code: 100 })
      post.deleted = true
      return reply.json(200, { success: true })
    }
    return reply.error(400, { message: "Unsupported request", code: 100 })
  }

  private pageView(pageId: string) {
    const page = this.login.pages.find((candidate) => candidate.id === pageId)!
    return { id: page.id, name: page.name }
  }

  private postView(post: FakeFacebookPost) {
    return {
      id: post.id,
      ...(post.message === null ? {} : { message: post.message }),
      created_time: new Date(post.createdAt).toISOString().replace(/\.\d{3}Z$/, "+0000"),
      permalink_url: post.kind === "reel" ? `https://www.facebook.com/reel/${post.id}` : `https://www.facebook.com/${post.pageId}/posts/${post.id.split("_").at(-1)}`
    }
  }

  private add(post: Omit<FakeFacebookPost, "createdAt" | "deleted">) {
    const made = { ...post, createdAt: Date.now(), deleted: false }
    this.posts.push(made)
    return made
  }

  private feed(request: GraphRequest, record: PageTokenRecord, reply: GraphReply) {
    const message = request.params["message"] ?? null
    const link = request.params["link"] ?? null
    const attached = request.params["attached_media"] === undefined ? [] : JSON.parse(request.params["attached_media"]) as Array<{ media_fbid: string }>
    if (message === null && link === null && attached.length === 0) {
      return reply.error(400, { message: "(#100) The parameter message or link or attached_media is required", code: 100, error_user_msg: "Your post is empty." })
    }
    if (link !== null && attached.length > 0) return reply.error(400, { message: "(#100) A post cannot carry a link and attached media", code: 100 })
    const photos: Array<FakePhoto> = []
    for (const entry of attached) {
      const found = this.photos.get(entry.media_fbid)
      if (found === undefined || found.pageId !== record.pageId) return reply.unsupported("post", entry.media_fbid)
      if (found.used) return reply.error(400, { message: "(#1366051) These photos were already posted.", code: 100, error_subcode: 1366051 })
      photos.push(found)
    }
    for (const found of photos) found.used = true
    const post = this.add({
      id: `${record.pageId}_${digits(16)}`,
      pageId: record.pageId,
      kind: "feed",
      message,
      link,
      media: photos.map((found) => ({ kind: "photo" as const, bytes: found.bytes, altText: found.altText }))
    })
    return reply.json(200, { id: post.id })
  }

  private async photo(request: GraphRequest, record: PageTokenRecord, reply: GraphReply) {
    if (!String(request.headers["content-type"]).startsWith("multipart/form-data")) return reply.error(400, { message: "(#324) Requires upload file", code: 324 })
    const { fields, files } = await multipart(request)
    const source = files["source"]
    if (source === undefined || source.length === 0) return reply.error(400, { message: "(#324) Requires upload file", code: 324 })
    const photo: FakePhoto = { id: digits(16), pageId: record.pageId, bytes: source.length, altText: fields["alt_text_custom"] ?? null, used: false }
    this.photos.set(photo.id, photo)
    if (fields["published"] === "false") return reply.json(200, { id: photo.id })
    photo.used = true
    const post = this.add({ id: `${record.pageId}_${digits(16)}`, pageId: record.pageId, kind: "photo", message: fields["caption"] ?? fields["message"] ?? null, link: null, media: [{ kind: "photo", bytes: photo.bytes, altText: photo.altText }] })
    return reply.json(200, { id: photo.id, post_id: post.id })
  }

  private chunk(video: FakeVideo) {
    const start = video.received.length
    return { start_offset: String(start), end_offset: String(Math.min(video.size, start + (this.options.chunkBytes ?? 1024 * 1024))) }
  }

  private async videoUpload(request: GraphRequest, record: PageTokenRecord, reply: GraphReply) {
    const multi = String(request.headers["content-type"]).startsWith("multipart/form-data")
    const { fields, files } = multi ? await multipart(request) : { fields: request.params, files: {} as Record<string, Buffer> }
    const phase = fields["upload_phase"]
    if (phase === "start") {
      const size = Number(fields["file_size"] ?? "0")
      if (!(size > 0)) return reply.error(400, { message: "(#100) file_size is required", code: 100 })
      const video: FakeVideo = { id: digits(16), pageId: record.pageId, edge: "videos", size, received: Buffer.alloc(0), session: digits(16) }
      this.videos.set(video.session, video)
      return reply.json(200, { video_id: video.id, upload_session_id: video.session, ...this.chunk(video) })
    }
    const video = this.videos.get(fields["upload_session_id"] ?? "")
    if (video === undefined || video.pageId !== record.pageId) return reply.error(400, { message: "(#6000) There was a problem uploading your video file. Please try again.", code: 6000, is_transient: true })
    if (phase === "transfer") {
      const chunk = files["video_file_chunk"]
      if (chunk === undefined || Number(fields["start_offset"]) !== video.received.length) {
        return reply.error(400, { message: "(#6001) The start_offset does not match the upload session", code: 6001, error_subcode: 1363019 })
      }
      video.received = Buffer.concat([video.received, chunk])
      return reply.json(200, this.chunk(video))
    }
    if (phase === "finish") {
      if (video.received.length !== video.size) return reply.error(400, { message: "(#6001) The video file was not fully uploaded", code: 6001 })
      this.add({ id: video.id, pageId: record.pageId, kind: "video", message: fields["description"] ?? null, link: null, media: [{ kind: "video", bytes: video.size, altText: null }] })
      return reply.json(200, { success: true })
    }
    return reply.error(400, { message: "(#100) upload_phase must be start, transfer or finish", code: 100 })
  }

  private ruploadPhase(request: GraphRequest, record: PageTokenRecord, edge: "video_reels" | "video_stories", reply: GraphReply) {
    const phase = request.params["upload_phase"]
    if (phase === "start") {
      const video: FakeVideo = { id: digits(16), pageId: record.pageId, edge, size: 0, received: Buffer.alloc(0), session: "" }
      this.videos.set(video.id, video)
      return reply.json(200, { video_id: video.id, upload_url: `${this.url}/video-upload/${this.options.version}/${video.id}` })
    }
    const video = this.videos.get(request.params["video_id"] ?? "")
    if (phase !== "finish" || video === undefined || video.edge !== edge || video.pageId !== record.pageId) return reply.unsupported("post", request.params["video_id"] ?? "")
    if (video.received.length === 0) return reply.error(400, { message: "The video was not uploaded", code: 100, error_subcode: 1363130, error_user_msg: "Upload the video before publishing it." })
    if (edge === "video_reels") {
      if (request.params["video_state"] !== "PUBLISHED") return reply.error(400, { message: "(#100) video_state must be PUBLISHED, DRAFT or SCHEDULED", code: 100 })
      this.add({ id: video.id, pageId: record.pageId, kind: "reel", message: request.params["description"] ?? null, link: null, media: [{ kind: "video", bytes: video.received.length, altText: null }] })
      return reply.json(200, { success: true })
    }
    const post = this.add({ id: digits(16), pageId: record.pageId, kind: "story", message: null, link: null, media: [{ kind: "video", bytes: video.received.length, altText: null }] })
    return reply.json(200, { success: true, post_id: post.id })
  }

  private rupload(request: GraphRequest, reply: GraphReply) {
    const record = this.login.pageToken(/^OAuth (.+)$/.exec(request.headers.authorization ?? "")?.[1])
    if (record === undefined || !record.valid) return reply.error(401, { message: "Invalid OAuth access token", code: 190 })
    const video = this.videos.get(request.parts.at(-1) ?? "")
    if (video === undefined || video.pageId !== record.pageId) return reply.error(400, { message: "ProcessingFailedError: no such video", code: 100 })
    if (request.headers["offset"] !== String(video.received.length) || Number(request.headers["file_size"]) !== request.body.length) {
      return reply.error(400, { message: "OffsetInvalidError: the offset or file_size header does not match", code: 100 })
    }
    video.received = Buffer.concat([video.received, request.body])
    return reply.json(200, { success: true })
  }

  private photoStory(request: GraphRequest, record: PageTokenRecord, reply: GraphReply) {
    const photo = this.photos.get(request.params["photo_id"] ?? "")
    if (photo === undefined || photo.pageId !== record.pageId) return reply.unsupported("post", request.params["photo_id"] ?? "")
    if (photo.used) return reply.error(400, { message: "(#1366051) This photo was already posted.", code: 100, error_subcode: 1366051 })
    photo.used = true
    const post = this.add({ id: digits(16), pageId: record.pageId, kind: "story", message: null, link: null, media: [{ kind: "photo", bytes: photo.bytes, altText: photo.altText }] })
    return reply.json(200, { success: true, post_id: post.id })
  }
}
