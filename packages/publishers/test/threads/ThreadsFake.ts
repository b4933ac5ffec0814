/**
 * A fake of Threads on loopback at its documented paths: the consent page (threads.net
 * /oauth/authorize), the token endpoints of graph.threads.net (/oauth/access_token,
 * /access_token with th_exchange_token, /refresh_access_token with th_refresh_token) and the
 * Graph API under /v1.0 (/me, /{user-id}/threads, /{container-id}, /{user-id}/threads_publish,
 * /{media-id}, /{user-id}/threads, /{media-id}/insights, /{user-id}/threads_publishing_limit,
 * DELETE /{media-id}), answering in Meta's error envelope (`{ error: { message, type, code,
 * error_subcode, is_transient, error_user_msg, fbtrace_id } }`). Containers go IN_PROGRESS →
 * FINISHED (or ERROR with Meta's reason) → PUBLISHED; media is downloaded from the URL the
 * container names, as Threads does; the 250-posts-in-24-hours quota is enforced at publish.
 */
import { randomBytes } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { LoopbackFake } from "../kit/LoopbackFake.js"
import type { FakeControls } from "../kit/publisherContract.js"

export interface ThreadsFakeOptions {
  readonly clientId: string
  readonly clientSecret: string
  readonly user?: { readonly id: string; readonly username: string }
  /** Status reads a container stays IN_PROGRESS before it is FINISHED (0: FINISHED at the first read). */
  readonly processingReads?: number
  /** Posts an account may publish in 24 hours (Threads': 250). */
  readonly quota?: number
}

export interface FakeContainer {
  readonly id: string
  readonly userId: string
  readonly fields: Readonly<Record<string, string>>
  status: "IN_PROGRESS" | "FINISHED" | "PUBLISHED" | "ERROR" | "EXPIRED"
  errorMessage: string | null
  reads: number
}

export interface FakeThread {
  readonly id: string
  readonly userId: string
  readonly container: FakeContainer
  readonly shortcode: string
  publishedAt: number
  /** The carousel's items' containers (empty otherwise). */
  readonly children: ReadonlyArray<FakeContainer>
  deleted: boolean
}

interface FakeToken {
  readonly userId: string
  readonly kind: "short" | "long"
  scopes: Set<string>
  /** Refused on API calls (Meta's 190/463); still refreshable. */
  expired: boolean
  /** Past its 60 days: refused everywhere, refresh included. */
  lapsed: boolean
}

export interface Fault {
  readonly status: number
  readonly body?: unknown
  readonly headers?: Record<string, string>
}

const allScopes = ["threads_basic", "threads_content_publish", "threads_manage_insights", "threads_delete", "threads_share_to_instagram"]
const replyControls = new Set(["everyone", "accounts_you_follow", "mentioned_only", "parent_post_author_only", "followers_only"])

const digits = (count: number) => {
  let out = String(1 + Math.floor(Math.random() * 9))
  while (out.length < count) out += String(Math.floor(Math.random() * 10))
  return out
}

/** Meta's envelope for a status the fake is told to answer without a body. */
const defaultFault = (status: number) =>
  status === 429
    ? { message: "Application request limit reached", type: "OAuthException", code: 4, is_transient: true }
    : status >= 500
    ? { message: "An unexpected error has occurred. Please retry your request later.", type: "OAuthException", code: 2, is_transient: true }
    : { message: `HTTP ${status}`, type: "OAuthException", code: 1 }

export class ThreadsFake extends LoopbackFake {
  readonly containers = new Map<string, FakeContainer>()
  readonly threads: Array<FakeThread> = []
  /** Every API call, as `METHOD /path?query`. */
  readonly calls: Array<string> = []
  /** Token endpoint calls, by grant. */
  readonly tokenCalls: Array<string> = []
  /** Insights Threads would report, by media id. */
  readonly insights = new Map<string, Record<string, number>>()
  readonly user: { readonly id: string; readonly username: string }
  private readonly tokens = new Map<string, FakeToken>()
  private readonly codes = new Map<string, { redirectUri: string; scopes: Set<string> }>()
  private readonly faults: Array<Fault> = []
  private hangPublish = false

  constructor(readonly options: ThreadsFakeOptions) {
    super()
    this.user = options.user ?? { id: "17841400000000001", username: "ada.lovelace" }
  }

  protected crashed(res: ServerResponse, error: unknown): void {
    this.json(res, 500, { error: { message: String(error), type: "OAuthException", code: 2, is_transient: true } })
  }


  // Hooks ------------------------------------------------------------------------------------

  failNext(fault: Fault): void {
    this.faults.push(fault)
  }

  /**
   * The next threads_publish is carried out (the post exists) and never answered: the call whose
   * lost answer leaves the outcome unknown in the container flow.
   */
  hangNext(): void {
    this.hangPublish = true
  }

  /** Every token is refused on API calls (190/463); refresh_access_token still takes them. */
  expireToken(): void {
    for (const token of this.tokens.values()) token.expired = true
  }

  /** Every token ran past its 60 days unrefreshed: refused on API calls and by refresh_access_token. */
  lapse(): void {
    for (const token of this.tokens.values()) {
      token.expired = true
      token.lapsed = true
    }
  }

  /** The user removed the app: every token dead, refresh included. */
  revokeGrant(): void {
    this.tokens.clear()
  }

  revokeScope(scope: string): void {
    for (const token of this.tokens.values()) token.scopes.delete(scope)
  }

  livePosts(): ReadonlyArray<FakeThread> {
    return this.threads.filter((thread) => !thread.deleted)
  }

  controls(): FakeControls {
    return {
      failNext: (reply) => this.failNext(reply),
      hangNext: () => this.hangNext(),
      expireToken: () => this.expireToken(),
      revokeGrant: () => this.revokeGrant(),
      revokeScope: (scope) => this.revokeScope(scope),
      publishScope: "threads_content_publish",
      posts: () =>
        this.livePosts().map((thread) => ({
          id: thread.id,
          text: thread.container.fields["text"] ?? null,
          media: thread.children.length > 0 ? thread.children.length : thread.container.fields["media_type"] === "TEXT" ? 0 : 1
        })),
      refreshes: () => this.tokenCalls.filter((grant) => grant === "th_refresh_token").length
    }
  }

  /** Follows a consent URL as the user would, approving it; answers where Threads redirects. */
  async consent(authorizeUrl: string): Promise<URL> {
    const response = await fetch(authorizeUrl, { redirect: "manual" })
    const location = response.headers.get("location")
    if (response.status !== 302 || location === null) throw new Error(`consent answered ${response.status}: ${await response.text()}`)
    return new URL(location)
  }

  // -------------------------------------------------------------------------------------------

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { "content-type": "application/json", ...headers })
    res.end(JSON.stringify(body))
  }

  private error(res: ServerResponse, status: number, code: number, message: string, extra: Record<string, unknown> = {}) {
    this.json(res, status, {
      error: { message, type: code === 190 ? "OAuthException" : "THApiException", code, ...extra, fbtrace_id: `A${randomBytes(8).toString("hex")}` }
    })
  }

  private async form(req: IncomingMessage, url: URL): Promise<URLSearchParams> {
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString("utf8")
    const params = new URLSearchParams(url.search)
    if ((req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) {
      for (const [name, value] of new URLSearchParams(body)) params.set(name, value)
    }
    return params
  }

  private mint(userId: string, kind: FakeToken["kind"], scopes: Set<string>) {
    const token = `TH${kind === "long" ? "L" : "S"}${randomBytes(24).toString("base64url")}`
    this.tokens.set(token, { userId, kind, scopes, expired: false, lapsed: false })
    return token
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", this.url)
    const path = url.pathname
    if (path === "/oauth/authorize" && req.method === "GET") return this.authorize(url, res)
    if (path === "/oauth/access_token" && req.method === "POST") return this.exchangeCode(await this.form(req, url), res)
    if (path === "/access_token" && req.method === "GET") return this.exchangeLong(url.searchParams, res)
    if (path === "/refresh_access_token" && req.method === "GET") return this.refresh(url.searchParams, res)
    this.calls.push(`${req.method} ${path}${url.search}`)
    const params = await this.form(req, url)
    const fault = this.faults.shift()
    if (fault !== undefined) {
      if (typeof fault.body === "string") {
        res.writeHead(fault.status, { ...fault.headers })
        return res.end(fault.body)
      }
      return this.json(res, fault.status, fault.body ?? { error: { ...defaultFault(fault.status), fbtrace_id: "AfakeTrace" } }, fault.headers)
    }
    const version = /^\/(v\d+\.\d+)\/(.*)$/.exec(path)
    if (version === null || version[1] !== "v1.0") {
      return this.error(res, 400, 2500, `Unknown path components: ${path}`)
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? params.get("access_token") ?? undefined
    const token = bearer === undefined ? undefined : this.tokens.get(bearer)
    if (token === undefined) return this.error(res, 400, 190, "Invalid OAuth access token - Cannot parse access token")
    if (token.expired) {
      return this.error(res, 400, 190, "Error validating access token: Session has expired.", { error_subcode: 463 })
    }
    const parts = version[2]!.split("/")
    return this.api(req.method ?? "GET", parts, params, token, res)
  }

  private api(method: string, parts: Array<string>, params: URLSearchParams, token: FakeToken, res: ServerResponse) {
    const [first, second] = parts
    if (method === "GET" && first === "me" && second === undefined) return this.json(res, 200, { id: this.user.id, username: this.user.username })
    if (first === this.user.id && token.userId === this.user.id) {
      if (method === "POST" && second === "threads") return this.createContainer(params, token, res)
      if (method === "POST" && second === "threads_publish") return this.publish(params, token, res)
      if (method === "GET" && second === "threads_publishing_limit") {
        if (!token.scopes.has("threads_content_publish")) return this.permission(res, "threads_content_publish")
        return this.json(res, 200, { data: [{ quota_usage: this.usage(), config: { quota_total: this.quota(), quota_duration: 86400 } }] })
      }
      if (method === "GET" && second === "threads") {
        // Newest first; `since` (Unix seconds) and `limit` (at most 100) with an `after` cursor.
        const since = Number(params.get("since") ?? 0) * 1000
        const limit = Math.min(Number(params.get("limit") ?? 25), 100)
        const from = Number(params.get("after") ?? 0)
        const all = this.livePosts().slice().reverse().filter((thread) => thread.publishedAt >= since)
        const data = all.slice(from, from + limit).map((thread) => this.view(thread))
        const after = from + limit < all.length ? String(from + limit) : ""
        return this.json(res, 200, { data, paging: { cursors: { before: String(from), after } } })
      }
    }
    const container = first === undefined ? undefined : this.containers.get(first)
    if (method === "GET" && container !== undefined && second === undefined && container.userId === token.userId) {
      if (container.status === "IN_PROGRESS" && container.reads++ >= (this.options.processingReads ?? 0)) container.status = "FINISHED"
      return this.json(res, 200, { id: container.id, status: container.status, ...(container.errorMessage === null ? {} : { error_message: container.errorMessage }) })
    }
    const thread = this.livePosts().find((candidate) => candidate.id === first && candidate.userId === token.userId)
    if (thread === undefined) {
      return this.error(res, 400, 100, `Unsupported ${method.toLowerCase()} request. Object with ID '${first}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`, { error_subcode: 33 })
    }
    if (method === "GET" && second === undefined) return this.json(res, 200, this.view(thread))
    if (method === "GET" && second === "insights") {
      if (!token.scopes.has("threads_manage_insights")) return this.permission(res, "threads_manage_insights")
      const counts = this.insights.get(thread.id) ?? {}
      const names = (params.get("metric") ?? "").split(",").filter((name) => name !== "")
      return this.json(res, 200, {
        data: names.map((name) => ({ name, period: "lifetime", values: [{ value: counts[name] ?? 0 }], id: `${thread.id}/insights/${name}/lifetime` }))
      })
    }
    if (method === "DELETE" && second === undefined) {
      if (!token.scopes.has("threads_delete")) return this.permission(res, "threads_delete")
      thread.deleted = true
      return this.json(res, 200, { success: true, deleted_id: thread.id })
    }
    return this.error(res, 400, 100, "Unsupported request")
  }

  private permission(res: ServerResponse, scope: string) {
    return this.error(res, 403, 10, `Application does not have permission for this action (${scope})`)
  }

  /** Moves a post's publication back in time, as if it had been published `byMs` earlier. */
  age(id: string, byMs: number): void {
    const thread = this.threads.find((candidate) => candidate.id === id)
    if (thread !== undefined) thread.publishedAt -= byMs
  }

  private quota() {
    return this.options.quota ?? 250
  }

  private usage() {
    const since = Date.now() - 24 * 60 * 60 * 1000
    return this.threads.filter((thread) => thread.publishedAt >= since).length
  }

  private view(thread: FakeThread) {
    const type = thread.children.length > 0 ? "CAROUSEL_ALBUM" : thread.container.fields["media_type"] === "TEXT" ? "TEXT_POST" : thread.container.fields["media_type"]
    return {
      id: thread.id,
      media_type: type,
      ...(thread.container.fields["text"] === undefined ? {} : { text: thread.container.fields["text"] }),
      permalink: `https://www.threads.net/@${this.user.username}/post/${thread.shortcode}`,
      timestamp: new Date(thread.publishedAt).toISOString().replace(/\.\d{3}Z$/, "+0000"),
      username: this.user.username
    }
  }

  private async createContainer(params: URLSearchParams, token: FakeToken, res: ServerResponse) {
    if (!token.scopes.has("threads_content_publish")) return this.permission(res, "threads_content_publish")
    const fields = Object.fromEntries([...params].filter(([name]) => name !== "access_token"))
    const type = fields["media_type"]
    const text = fields["text"]
    const invalid = (message: string) => this.error(res, 400, 100, message, { error_user_msg: message })
    if (type === undefined || !["TEXT", "IMAGE", "VIDEO", "CAROUSEL"].includes(type)) return invalid("Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}")
    if (text !== undefined && [...text].length > 500) return invalid("Param text must be at most 500 characters long.")
    if (type === "TEXT" && (text === undefined || text === "")) return invalid("Param text is required for media_type TEXT")
    const textOnly = ["poll_attachment", "gif_attachment", "link_attachment"].filter((name) => fields[name] !== undefined)
    if (type !== "TEXT" && textOnly.length > 0) return invalid(`${textOnly.join(", ")} can only be used on text posts`)
    if (fields["poll_attachment"] !== undefined && fields["gif_attachment"] !== undefined) return invalid("A post carries a poll or a GIF, not both")
    if (fields["poll_attachment"] !== undefined) {
      const poll = JSON.parse(fields["poll_attachment"]) as Record<string, unknown>
      const options = ["option_a", "option_b", "option_c", "option_d"].filter((key) => typeof poll[key] === "string")
      if (options.length < 2 || Object.keys(poll).length !== options.length) return invalid("poll_attachment needs option_a and option_b (option_c, option_d optional)")
    }
    if (fields["gif_attachment"] !== undefined) {
      const gif = JSON.parse(fields["gif_attachment"]) as Record<string, unknown>
      if (typeof gif["gif_id"] !== "string" || gif["provider"] !== "GIPHY") return invalid("gif_attachment needs a gif_id and provider GIPHY")
    }
    const tag = fields["topic_tag"]
    if (tag !== undefined && (tag.length < 1 || tag.length > 50 || /[.&]/.test(tag))) return invalid("topic_tag is 1 to 50 characters without periods or ampersands")
    if (fields["reply_control"] !== undefined && !replyControls.has(fields["reply_control"])) return invalid("Param reply_control is not valid")
    if (fields["crossreshare_to_ig"] !== undefined && !token.scopes.has("threads_share_to_instagram")) return this.permission(res, "threads_share_to_instagram")
    const container: FakeContainer = { id: digits(17), userId: token.userId, fields, status: "IN_PROGRESS", errorMessage: null, reads: 0 }
    if (type === "CAROUSEL") {
      const children = (fields["children"] ?? "").split(",").filter((id) => id !== "")
      if (children.length < 2 || children.length > 20) return invalid("A carousel holds 2 to 20 items")
      for (const id of children) {
        const child = this.containers.get(id)
        if (child === undefined || child.fields["is_carousel_item"] !== "true" || child.userId !== token.userId) return invalid(`children: ${id} is not a carousel item of this user`)
        if (child.status !== "FINISHED") return this.error(res, 400, 24, "The requested resource does not exist", { error_subcode: 4279009, error_user_msg: "Media Not Found" })
      }
    }
    if (type === "IMAGE" || type === "VIDEO") {
      const source = fields[type === "IMAGE" ? "image_url" : "video_url"]
      if (source === undefined) return invalid(`Param ${type === "IMAGE" ? "image_url" : "video_url"} is required`)
      const downloaded = await fetch(source).then((answer) => answer.ok ? answer.arrayBuffer() : null, () => null)
      if (downloaded === null || downloaded.byteLength === 0) {
        if (type === "IMAGE") {
          return this.error(res, 400, 1, "Media download has failed. The media URI doesn't meet our requirements.", { error_subcode: 2207052, error_user_msg: "The media could not be fetched from this URI" })
        }
        container.status = "ERROR"
        container.errorMessage = "FAILED_DOWNLOADING_VIDEO"
      }
    }
    this.containers.set(container.id, container)
    return this.json(res, 200, { id: container.id })
  }

  private publish(params: URLSearchParams, token: FakeToken, res: ServerResponse) {
    if (!token.scopes.has("threads_content_publish")) return this.permission(res, "threads_content_publish")
    const container = this.containers.get(params.get("creation_id") ?? "")
    if (container === undefined || container.userId !== token.userId || container.fields["is_carousel_item"] === "true") {
      return this.error(res, 400, 100, "Param creation_id is not a container of this user")
    }
    if (container.status !== "FINISHED") {
      return this.error(res, 400, 24, "The requested resource does not exist", { error_subcode: 4279009, error_user_msg: `Media Not Found (${container.status})` })
    }
    if (this.usage() >= this.quota()) return this.error(res, 400, 4, "Application request limit reached: the profile has published its 250 posts of the last 24 hours", { is_transient: true })
    container.status = "PUBLISHED"
    const children = (container.fields["children"] ?? "").split(",").filter((id) => id !== "").map((id) => this.containers.get(id)!)
    const thread: FakeThread = {
      id: digits(17),
      userId: token.userId,
      container,
      shortcode: randomBytes(8).toString("base64url").slice(0, 11),
      publishedAt: Date.now(),
      children,
      deleted: false
    }
    this.threads.push(thread)
    if (this.hangPublish) {
      this.hangPublish = false
      this.hung.push(res)
      return
    }
    return this.json(res, 200, { id: thread.id })
  }

  // OAuth -------------------------------------------------------------------------------------

  private authorize(url: URL, res: ServerResponse) {
    const query = url.searchParams
    if (query.get("client_id") !== this.options.clientId) return this.error(res, 400, 101, "Error validating application. Invalid application ID.")
    const redirectUri = query.get("redirect_uri")
    if (redirectUri === null) return this.error(res, 400, 100, "redirect_uri is required")
    if (query.get("response_type") !== "code") return this.error(res, 400, 100, "response_type must be code")
    const scopes = new Set((query.get("scope") ?? "").split(","))
    if (!scopes.has("threads_basic")) return this.error(res, 400, 100, "threads_basic is required")
    for (const scope of scopes) if (!allScopes.includes(scope)) return this.error(res, 400, 100, `Invalid scope: ${scope}`)
    const code = `AQ${randomBytes(24).toString("base64url")}`
    this.codes.set(code, { redirectUri, scopes })
    const target = new URL(redirectUri)
    target.searchParams.set("code", code)
    target.searchParams.set("state", query.get("state") ?? "")
    // Threads appends #_ to its redirect.
    res.writeHead(302, { location: `${target.toString()}#_` })
    return res.end()
  }

  private exchangeCode(form: URLSearchParams, res: ServerResponse) {
    this.tokenCalls.push(form.get("grant_type") ?? "")
    if (form.get("client_id") !== this.options.clientId || form.get("client_secret") !== this.options.clientSecret) {
      return this.error(res, 400, 101, "Error validating client secret.")
    }
    if (form.get("grant_type") !== "authorization_code") return this.error(res, 400, 100, "Unsupported grant_type")
    const code = this.codes.get(form.get("code") ?? "")
    this.codes.delete(form.get("code") ?? "")
    if (code === undefined || code.redirectUri !== form.get("redirect_uri")) {
      return this.error(res, 400, 100, "Invalid verification code format.", { error_subcode: 36008 })
    }
    return this.json(res, 200, { access_token: this.mint(this.user.id, "short", code.scopes), user_id: Number(this.user.id) })
  }

  private exchangeLong(query: URLSearchParams, res: ServerResponse) {
    this.tokenCalls.push(query.get("grant_type") ?? "")
    if (query.get("grant_type") !== "th_exchange_token") return this.error(res, 400, 100, "Unsupported grant_type")
    if (query.get("client_secret") !== this.options.clientSecret) return this.error(res, 400, 101, "Error validating client secret.")
    const short = this.tokens.get(query.get("access_token") ?? "")
    if (short === undefined || short.kind !== "short") return this.error(res, 400, 190, "Invalid OAuth access token - Cannot parse access token")
    this.tokens.delete(query.get("access_token") ?? "")
    return this.json(res, 200, { access_token: this.mint(short.userId, "long", short.scopes), token_type: "bearer", expires_in: 5183944 })
  }

  private refresh(query: URLSearchParams, res: ServerResponse) {
    this.tokenCalls.push(query.get("grant_type") ?? "")
    if (query.get("grant_type") !== "th_refresh_token") return this.error(res, 400, 100, "Unsupported grant_type")
    const old = this.tokens.get(query.get("access_token") ?? "")
    if (old === undefined || old.kind !== "long") return this.error(res, 400, 190, "Error validating access token: The user has not authorized application.", { error_subcode: 458 })
    if (old.lapsed) return this.error(res, 400, 190, "Error validating access token: Session has expired.", { error_subcode: 463 })
    this.tokens.delete(query.get("access_token") ?? "")
    return this.json(res, 200, { access_token: this.mint(old.userId, "long", old.scopes), token_type: "bearer", expires_in: 5184000 })
  }
}
