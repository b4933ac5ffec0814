/**
 * A contract fake of Ayrshare's API on loopback, under /api as the real one: the API key as a
 * Bearer token and the Profile-Key header checked on every call; POST /post (Instagram only),
 * POST /comments, POST /analytics/post, GET /history, GET /user and GET /brand/byUser with the
 * shapes docs/networks/aggregator.md describes, and the error envelope `{ status: "error", code,
 * message }` (per network in `errors` on /post). No delete: Ayrshare cannot delete published
 * Instagram posts.
 */
import { randomBytes } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { FakeControls, FakePost, InjectedReply } from "../kit/publisherContract.js"
import { LoopbackFake } from "../kit/LoopbackFake.js"

export interface AyrshareProfile {
  /** The Instagram account the profile links. */
  readonly username: string
  readonly instagramId: string
}

export interface AyrsharePost {
  readonly id: string
  readonly instagramId: string
  readonly postUrl: string
  readonly profileKey: string | null
  readonly body: Record<string, unknown>
  readonly created: string
  comments: Array<string>
}

export interface AyrshareFakeOptions {
  readonly apiKey: string
  /** The user profiles by Profile-Key; the key "" is the primary profile (no Profile-Key header). */
  readonly profiles: Readonly<Record<string, AyrshareProfile>>
  /** Instagram accounts the Brand API finds (besides the profiles' own). */
  readonly knownHandles?: ReadonlyArray<string>
  /** False: the account's plan has no Brand API (lookups refused 403). */
  readonly brandApi?: boolean
}

const errorBody = (status: number) => ({
  status: "error",
  code: status === 429 ? 429 : status >= 500 ? 500 : status,
  message: status === 429 ? "Too many requests" : status >= 500 ? "Internal error, try again" : `Error ${status}`
})

export class AyrshareFake extends LoopbackFake {
  readonly posts = new Map<string, AyrsharePost>()
  readonly requests: Array<{ readonly method: string; readonly path: string; readonly profileKey: string | null; readonly body: unknown }> = []
  /** Profiles whose Instagram authorization was lost (must be linked again). */
  readonly unlinked = new Set<string>()
  /** Profiles on which Instagram is disabled (the plan or the profile's settings). */
  readonly disabled = new Set<string>()
  analytics = { likeCount: 7, commentsCount: 2, reachCount: 40, savedCount: 1, sharesCount: 3, viewsCount: 55 }
  private injected: Array<InjectedReply> = []
  private hang = 0
  private counter = 0

  constructor(readonly options: AyrshareFakeOptions) {
    super()
  }

  /** The API's base URL, as HERALD_AYRSHARE_API_URL takes it. */
  get apiUrl(): string {
    return `${this.url}/api`
  }

  failNext(reply: InjectedReply): void {
    this.injected.push(reply)
  }

  hangNext(): void {
    this.hang += 1
  }

  controls(): FakeControls {
    const profileKeys = Object.keys(this.options.profiles)
    return {
      failNext: (reply) => this.failNext(reply),
      hangNext: () => this.hangNext(),
      // Ayrshare's keys do not expire: nothing to do (the contract skips the refresh case).
      expireToken: () => {},
      revokeGrant: () => profileKeys.forEach((key) => this.unlinked.add(key)),
      revokeScope: () => profileKeys.forEach((key) => this.disabled.add(key)),
      publishScope: "instagram",
      posts: () => this.livePosts(),
      refreshes: () => 0
    }
  }

  livePosts(): ReadonlyArray<FakePost> {
    return [...this.posts.values()].map((post) => ({
      id: post.id,
      text: typeof post.body.post === "string" ? post.body.post : null,
      media: Array.isArray(post.body.mediaUrls) ? post.body.mediaUrls.length : 0
    }))
  }

  protected crashed(res: ServerResponse, error: unknown): void {
    this.send(res, 500, { status: "error", code: 500, message: String(error) })
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}) {
    const text = typeof body === "string" ? body : JSON.stringify(body)
    res.writeHead(status, { "content-type": typeof body === "string" ? "text/html" : "application/json", ...headers })
    res.end(text)
  }

  private id(length: number): string {
    this.counter += 1
    return `${randomBytes(length).toString("base64url").slice(0, length - 3)}${String(this.counter).padStart(3, "0")}`
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const raw = Buffer.concat(chunks).toString("utf8")
    const body: unknown = raw === "" ? undefined : JSON.parse(raw)
    const url = new URL(req.url ?? "/", "http://fake")
    const path = url.pathname.replace(/^\/api\//, "")
    const profileHeader = req.headers["profile-key"]
    const profileKey = typeof profileHeader === "string" ? profileHeader : null
    this.requests.push({ method: req.method ?? "GET", path, profileKey, body })

    const injected = this.injected.shift()
    if (injected !== undefined) {
      return this.send(res, injected.status, injected.body ?? errorBody(injected.status), injected.headers)
    }
    if (req.headers.authorization !== `Bearer ${this.options.apiKey}`) {
      return this.send(res, 401, { status: "error", code: 102, message: "API Key not valid. Verify your API Key." })
    }
    const key = profileKey ?? ""
    const profile = this.options.profiles[key]
    if (profile === undefined) return this.send(res, 403, { status: "error", code: 136, message: "Profile Key not valid." })

    const reply = (status: number, answer: unknown) => {
      if (this.hang > 0) {
        // The fake acted; its answer never comes.
        this.hang -= 1
        this.hung.push(res)
        return
      }
      this.send(res, status, answer)
    }
    const payload = (body ?? {}) as Record<string, unknown>

    if (req.method === "GET" && path === "user") {
      const linked = !this.unlinked.has(key)
      // Ayrshare leaves activeSocialAccounts out when the profile links nothing.
      return reply(200, {
        ...(linked ? { activeSocialAccounts: ["instagram"] } : {}),
        displayNames: linked ? [{ platform: "instagram", username: profile.username, id: profile.instagramId, displayName: profile.username }] : [],
        email: null,
        refId: `ref-${key || "primary"}`
      })
    }
    if (req.method === "GET" && path === "brand/byUser") {
      if (this.options.brandApi === false) return reply(403, { status: "error", code: 169, message: "The Brand API is not available on this plan." })
      const wanted = (url.searchParams.get("instagramUser") ?? "").replace(/^@/, "").toLowerCase()
      const known = [...Object.values(this.options.profiles).map((one) => one.username), ...(this.options.knownHandles ?? [])]
      const found = known.find((handle) => handle.toLowerCase() === wanted)
      return found === undefined
        ? reply(404, { status: "error", code: 195, message: `Instagram user @${wanted} not found or not a business or creator account.` })
        : reply(200, { instagram: { username: found, id: `1784${found.length}0000` } })
    }
    if (req.method === "POST" && path === "post") {
      if (JSON.stringify(payload.platforms) !== JSON.stringify(["instagram"])) {
        return reply(400, { status: "error", code: 101, message: "platforms must name instagram" })
      }
      if (this.unlinked.has(key)) {
        return reply(400, {
          status: "error",
          errors: [{ action: "post", status: "error", code: 161, message: "Instagram authorization lost: link the account again.", platform: "instagram" }],
          postIds: []
        })
      }
      if (this.disabled.has(key)) {
        return reply(403, { status: "error", errors: [{ action: "post", status: "error", code: 171, message: "Instagram is not enabled for this profile.", platform: "instagram" }], postIds: [] })
      }
      const media = payload.mediaUrls
      if (!Array.isArray(media) || media.length === 0) {
        return reply(400, { status: "error", errors: [{ action: "post", status: "error", code: 138, message: "Instagram requires an image or video.", platform: "instagram" }], postIds: [] })
      }
      const id = this.id(20)
      const instagramId = `17${String(Date.now()).slice(-10)}${String(this.counter).padStart(5, "0")}`
      const options = (payload.instagramOptions ?? {}) as Record<string, unknown>
      const code = this.id(11)
      const postUrl = options.stories === true
        ? `https://www.instagram.com/stories/${profile.username}/${instagramId}/`
        : `https://www.instagram.com/p/${code}/`
      this.posts.set(id, { id, instagramId, postUrl, profileKey, body: payload, created: new Date().toISOString(), comments: [] })
      return reply(200, { status: "success", id, postIds: [{ status: "success", id: instagramId, platform: "instagram", postUrl }], post: payload.post, errors: [] })
    }
    if (req.method === "POST" && path === "comments") {
      const post = this.posts.get(String(payload.id))
      if (post === undefined || post.profileKey !== profileKey) return reply(404, { status: "error", code: 186, message: "Post not found." })
      post.comments.push(String(payload.comment))
      return reply(200, { status: "success", instagram: { status: "success", commentId: this.id(17), comment: payload.comment, platform: "instagram" } })
    }
    if (req.method === "POST" && path === "analytics/post") {
      const post = this.posts.get(String(payload.id))
      if (post === undefined || post.profileKey !== profileKey) return reply(404, { status: "error", code: 186, message: "Post not found." })
      return reply(200, { status: "success", id: post.id, instagram: { id: post.instagramId, postUrl: post.postUrl, analytics: this.analytics } })
    }
    if (req.method === "GET" && path === "history") {
      // Ayrshare documents `limit` (default 25); the older `lastRecords` is not read.
      const last = Number(url.searchParams.get("limit") ?? "25")
      const history = [...this.posts.values()].filter((post) => post.profileKey === profileKey).reverse().slice(0, last).map((post) => ({
        id: post.id,
        post: post.body.post,
        status: "success",
        created: post.created,
        platforms: ["instagram"],
        postIds: [{ status: "success", id: post.instagramId, platform: "instagram", postUrl: post.postUrl }]
      }))
      return reply(200, { history, refId: `ref-${key || "primary"}`, count: history.length })
    }
    return reply(404, { status: "error", code: 404, message: `no route ${req.method} /api/${path}` })
  }
}
