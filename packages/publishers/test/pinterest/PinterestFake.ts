/**
 * A fake of Pinterest on loopback at its documented paths (API v5, pinterest/api-description's
 * OpenAPI, kept as pinterest-openapi.json): the consent page (www.pinterest.com/oauth/), the token
 * endpoint (POST /v5/oauth/token, the app as HTTP Basic, refresh tokens rotating), GET
 * /v5/user_account, GET /v5/boards, GET /v5/boards/{board_id}/pins, POST /v5/pins, GET and DELETE
 * /v5/pins/{pin_id}, GET /v5/pins/{pin_id}/analytics, POST /v5/media, GET /v5/media/{media_id}, and
 * the upload URL POST /v5/media hands out (a presigned S3 form in production). Refusals come in
 * Pinterest's envelope `{ code, message }`. Request bodies are checked against the document's
 * schemas and each call against its operation's scopes; a video goes registered → processing →
 * succeeded (or failed) as Pinterest's media states do.
 */
import { randomBytes } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { LoopbackFake } from "../kit/LoopbackFake.js"
import { callsStartingWith, FaultQueue } from "../kit/FaultQueue.js"
import type { FakeControls, InjectedReply } from "../kit/publisherContract.js"
import { pinterestOpenApi, scopesFor } from "./PinterestOpenApi.js"

export interface PinterestFakeOptions {
  readonly clientId: string
  readonly clientSecret: string
  readonly user?: { readonly id: string; readonly username: string }
  /** The user's boards, in the order Pinterest lists them. */
  readonly boards?: ReadonlyArray<FakeBoard>
  /** Status reads a video stays `processing` before it is `succeeded` (0: at the first read). */
  readonly processingReads?: number
  /** Boards per page of GET /v5/boards (Pinterest's default is 25). */
  readonly boardPage?: number
}

export interface FakeBoard {
  readonly id: string
  readonly name: string
  readonly privacy: "PUBLIC" | "PROTECTED" | "SECRET"
  readonly owner?: string
}

export interface FakePin {
  readonly id: string
  readonly userId: string
  readonly boardId: string
  readonly body: Readonly<Record<string, unknown>>
  readonly createdAt: string
  deleted: boolean
}

export interface FakeMedia {
  readonly id: string
  readonly key: string
  status: "registered" | "processing" | "succeeded" | "failed"
  reads: number
  bytes: number
}

interface FakeToken {
  readonly userId: string
  scopes: Set<string>
  expired: boolean
}

const allScopes = [
  "user_accounts:read",
  "boards:read",
  "boards:read_secret",
  "boards:write",
  "boards:write_secret",
  "pins:read",
  "pins:read_secret",
  "pins:write",
  "pins:write_secret",
  "ads:read"
]

const defaultBoards: ReadonlyArray<FakeBoard> = [
  { id: "549755885175", name: "Recipes", privacy: "PUBLIC" },
  { id: "549755885176", name: "Travel", privacy: "PUBLIC" },
  { id: "549755885177", name: "Drafts", privacy: "SECRET" },
  { id: "549755885178", name: "Ads only", privacy: "PROTECTED" }
]

const digits = (count: number) => {
  let out = String(1 + Math.floor(Math.random() * 9))
  while (out.length < count) out += String(Math.floor(Math.random() * 10))
  return out
}

/** Pinterest's envelope for a status the fake is told to answer without a body. */
const defaultFault = (status: number) =>
  status === 429
    ? { code: 8, message: "You have exceeded your rate limit. Try again later." }
    : status >= 500
    ? { code: 1, message: "Something went wrong on our end. Sorry about that." }
    : { code: 1, message: `HTTP ${status}` }

export class PinterestFake extends LoopbackFake {
  readonly pins: Array<FakePin> = []
  readonly media = new Map<string, FakeMedia>()
  /** Every API call, as `METHOD /path?query`. */
  readonly calls: Array<string> = []
  /** Token endpoint calls, by grant. */
  readonly tokenCalls: Array<string> = []
  /** Analytics Pinterest would report, by pin id (metric type → count). */
  readonly analytics = new Map<string, Record<string, number>>()
  /** Analytics of the pins `analytics` has no entry for. */
  analyticsOfOthers: Record<string, number> = {}
  readonly user: { readonly id: string; readonly username: string }
  boards: Array<FakeBoard>
  /** GET /v5/boards answers this (then works again) when set. */
  boardsFault: InjectedReply | undefined
  private readonly tokens = new Map<string, FakeToken>()
  private readonly refreshTokens = new Map<string, { userId: string; scopes: Set<string> }>()
  private readonly codes = new Map<string, { redirectUri: string; scopes: Set<string> }>()
  private readonly faults = new FaultQueue<InjectedReply>()
  /** POST /v5/pins calls to answer before the one that hangs; null: none hangs. */
  private hangAfter: number | null = null

  constructor(readonly options: PinterestFakeOptions) {
    super()
    this.user = options.user ?? { id: "2783136121146311751", username: "ada_pins" }
    this.boards = [...(options.boards ?? defaultBoards)]
  }

  protected crashed(res: ServerResponse, error: unknown): void {
    this.json(res, 500, { code: 1, message: String(error) })
  }


  // Hooks ------------------------------------------------------------------------------------

  /**
   * The next API call (or the one after `skip` others) gets this reply; with `only` (such as
   * "POST /v5/pins"), the next such call, whatever else the workers call meanwhile.
   */
  failNext(reply: InjectedReply, options: { readonly skip?: number; readonly only?: string } = {}): void {
    this.faults.push(reply, callsStartingWith(options.only), options.skip)
  }

  /** The next POST /v5/pins (or the one after `skip` others) is carried out (the pin exists) and never answered. */
  hangNext(skip = 0): void {
    this.hangAfter = skip
  }

  /** Every access token is refused (401); the refresh tokens still work. */
  expireToken(): void {
    for (const token of this.tokens.values()) token.expired = true
  }

  /** The user disconnected the app: every token dead, refresh included. */
  revokeGrant(): void {
    this.tokens.clear()
    this.refreshTokens.clear()
  }

  revokeScope(scope: string): void {
    for (const token of this.tokens.values()) token.scopes.delete(scope)
    for (const grant of this.refreshTokens.values()) grant.scopes.delete(scope)
  }

  livePins(): ReadonlyArray<FakePin> {
    return this.pins.filter((pin) => !pin.deleted)
  }

  controls(): FakeControls {
    return {
      failNext: (reply) => this.failNext(reply),
      hangNext: () => this.hangNext(),
      expireToken: () => this.expireToken(),
      revokeGrant: () => this.revokeGrant(),
      revokeScope: (scope) => this.revokeScope(scope),
      publishScope: "pins:write",
      posts: () =>
        this.livePins().map((pin) => ({
          id: pin.id,
          text: typeof pin.body["description"] === "string" ? pin.body["description"] : null,
          media: mediaCount(pin.body["media_source"])
        })),
      refreshes: () => this.tokenCalls.filter((grant) => grant === "refresh_token").length
    }
  }

  /** Follows a consent URL as the user would, approving it; answers where Pinterest redirects. */
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

  private error(res: ServerResponse, status: number, code: number, message: string) {
    this.json(res, status, { code, message })
  }

  private async body(req: IncomingMessage): Promise<Buffer> {
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", this.url)
    const path = url.pathname
    const method = req.method ?? "GET"
    if (path === "/oauth/" && method === "GET") return this.authorize(url, res)
    const raw = await this.body(req)
    if (path === "/v5/oauth/token" && method === "POST") return this.token(req, raw, res)
    if (path.startsWith("/upload/") && method === "POST") return this.upload(path.slice("/upload/".length), req, raw, res)
    this.calls.push(`${method} ${path}${url.search}`)
    const call = `${method} ${path}`
    const fault = this.faults.take(call)
    if (fault !== undefined) {
      if (typeof fault.body === "string") {
        res.writeHead(fault.status, { ...fault.headers })
        return res.end(fault.body)
      }
      return this.json(res, fault.status, fault.body ?? defaultFault(fault.status), fault.headers)
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
    const token = bearer === undefined ? undefined : this.tokens.get(bearer)
    if (token === undefined || token.expired) return this.error(res, 401, 2, "Authentication failed.")
    const operation = this.operation(method, path)
    if (operation === undefined) return this.error(res, 404, 1, `No operation ${method} ${path}`)
    const missing = scopesFor(operation.path, operation.method).filter((scope) => !token.scopes.has(scope))
    if (missing.length > 0) return this.error(res, 403, 3, `Not authorized to access the user account: missing scope ${missing.join(", ")}`)
    return this.api(operation, url, raw, token, res)
  }

  /** The document's operation a request is for, with its path parameters. */
  private operation(method: string, path: string) {
    for (const template of Object.keys(pinterestOpenApi.document.paths)) {
      const names: Array<string> = []
      const pattern = new RegExp(`^/v5${template.replace(/\{([^}]+)\}/g, (_, name: string) => (names.push(name), "([^/]+)"))}$`)
      const match = pattern.exec(path)
      if (match === null || pinterestOpenApi.document.paths[template]?.[method.toLowerCase()] === undefined) continue
      return { path: template, method: method.toLowerCase(), params: Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)])) }
    }
    return undefined
  }

  private jsonBody(operation: { path: string; method: string }, raw: Buffer, res: ServerResponse): Record<string, unknown> | undefined {
    let value: unknown
    try {
      value = JSON.parse(raw.toString("utf8"))
    } catch {
      this.error(res, 400, 1, "Invalid request body: not JSON")
      return undefined
    }
    const wrong = pinterestOpenApi.violations(pinterestOpenApi.requestSchema(operation.path, operation.method), value)
    if (wrong.length > 0) {
      this.error(res, 400, 1, `Invalid request body: ${wrong.join("; ")}`)
      return undefined
    }
    return value as Record<string, unknown>
  }

  private api(operation: { path: string; method: string; params: Record<string, string> }, url: URL, raw: Buffer, token: FakeToken, res: ServerResponse) {
    const key = `${operation.method} ${operation.path}`
    switch (key) {
      case "get /user_account":
        return this.json(res, 200, { id: this.user.id, username: this.user.username, account_type: "BUSINESS" })
      case "get /boards":
        return this.listBoards(url, token, res)
      case "get /boards/{board_id}/pins": {
        const board = this.visibleBoards(token).find((entry) => entry.id === operation.params["board_id"])
        if (board === undefined) return this.error(res, 404, 40, "Board not found.")
        const items = this.livePins().filter((pin) => pin.boardId === board.id).slice().reverse().map((pin) => this.view(pin))
        return this.json(res, 200, { items, bookmark: null })
      }
      case "post /pins": {
        const body = this.jsonBody(operation, raw, res)
        return body === undefined ? undefined : this.createPin(body, token, res)
      }
      case "get /pins/{pin_id}": {
        const pin = this.ownPin(operation.params["pin_id"], token)
        return pin === undefined ? this.error(res, 404, 50, "Pin not found.") : this.json(res, 200, this.view(pin))
      }
      case "delete /pins/{pin_id}": {
        const pin = this.ownPin(operation.params["pin_id"], token)
        if (pin === undefined) return this.error(res, 404, 50, "Pin not found.")
        pin.deleted = true
        res.writeHead(204)
        return res.end()
      }
      case "get /pins/{pin_id}/analytics":
        return this.pinAnalytics(operation.params["pin_id"], url, token, res)
      case "post /media": {
        const body = this.jsonBody(operation, raw, res)
        if (body === undefined) return
        const media: FakeMedia = { id: digits(19), key: `uploads/${randomBytes(6).toString("hex")}/video`, status: "registered", reads: 0, bytes: 0 }
        this.media.set(media.id, media)
        return this.json(res, 201, {
          media_id: media.id,
          media_type: "video",
          upload_url: `${this.url}/upload/${media.id}`,
          upload_parameters: {
            "x-amz-date": "20261124T120000Z",
            "x-amz-signature": randomBytes(32).toString("hex"),
            "x-amz-security-token": randomBytes(16).toString("base64"),
            "x-amz-algorithm": "AWS4-HMAC-SHA256",
            key: media.key,
            policy: Buffer.from(JSON.stringify({ expiration: "2026-11-24T13:00:00Z" })).toString("base64"),
            "x-amz-credential": "ASIAFAKE/20261124/us-east-1/s3/aws4_request",
            "Content-Type": "multipart/form-data"
          }
        })
      }
      case "get /media/{media_id}": {
        const media = this.media.get(operation.params["media_id"] ?? "")
        if (media === undefined) return this.error(res, 404, 1, "Media not found.")
        if (media.status === "processing" && media.reads++ >= (this.options.processingReads ?? 0)) media.status = "succeeded"
        return this.json(res, 200, { media_id: media.id, media_type: "video", status: media.status })
      }
      default:
        return this.error(res, 404, 1, `No operation ${key}`)
    }
  }

  private visibleBoards(token: FakeToken) {
    return this.boards.filter((board) => board.privacy !== "SECRET" || token.scopes.has("boards:read_secret"))
  }

  private listBoards(url: URL, token: FakeToken, res: ServerResponse) {
    if (this.boardsFault !== undefined) {
      const fault = this.boardsFault
      this.boardsFault = undefined
      return this.json(res, fault.status, fault.body ?? defaultFault(fault.status), fault.headers)
    }
    const size = Math.min(Number(url.searchParams.get("page_size") ?? 25), this.options.boardPage ?? 250)
    const start = Number(url.searchParams.get("bookmark") ?? 0)
    const boards = this.visibleBoards(token)
    const items = boards.slice(start, start + size).map((board) => ({
      id: board.id,
      name: board.name,
      privacy: board.privacy,
      is_ads_only: board.privacy === "PROTECTED",
      owner: { username: board.owner ?? this.user.username },
      created_at: "2025-01-01T00:00:00"
    }))
    return this.json(res, 200, { items, bookmark: start + size < boards.length ? String(start + size) : null })
  }

  private ownPin(id: string | undefined, token: FakeToken) {
    return this.livePins().find((pin) => pin.id === id && pin.userId === token.userId)
  }

  private view(pin: FakePin) {
    const source = pin.body["media_source"] as { source_type: string }
    return {
      id: pin.id,
      created_at: pin.createdAt,
      board_id: pin.boardId,
      board_owner: { username: this.user.username },
      title: pin.body["title"] ?? null,
      description: pin.body["description"] ?? null,
      link: pin.body["link"] ?? null,
      alt_text: pin.body["alt_text"] ?? null,
      is_owner: true,
      creative_type: source.source_type === "video_id" ? "VIDEO" : source.source_type === "multiple_image_base64" ? "CAROUSEL" : "REGULAR",
      media: { media_type: source.source_type === "video_id" ? "video" : source.source_type === "multiple_image_base64" ? "multiple_images" : "image" }
    }
  }

  private createPin(body: Record<string, unknown>, token: FakeToken, res: ServerResponse) {
    const boardId = body["board_id"]
    if (typeof boardId !== "string") return this.error(res, 400, 1, "Invalid request body: board_id is required")
    const board = this.visibleBoards(token).find((entry) => entry.id === boardId)
    if (board === undefined) return this.error(res, 404, 40, "Board not found.")
    if (board.privacy === "SECRET" && !token.scopes.has("pins:write_secret")) return this.error(res, 403, 3, "Not authorized to create a Pin on a secret board: missing scope pins:write_secret")
    if (board.privacy === "PROTECTED") return this.error(res, 400, 1, "This board only takes ad Pins.")
    const source = body["media_source"] as Record<string, unknown> | undefined
    if (source === undefined) return this.error(res, 400, 1, "Invalid request body: media_source is required")
    if (source["source_type"] === "video_id") {
      const media = this.media.get(String(source["media_id"]))
      if (media === undefined) return this.error(res, 400, 1, "Invalid media_id")
      if (media.status !== "succeeded") return this.error(res, 400, 1, `Media upload ${media.id} is ${media.status}, not succeeded`)
      if (source["cover_image_url"] === undefined && source["cover_image_content_type"] === undefined && source["cover_image_key_frame_time"] === undefined) {
        return this.error(res, 400, 1, "Invalid request body: cover_image_url or cover_image_content_type is required")
      }
    }
    const pin: FakePin = { id: digits(18), userId: token.userId, boardId, body, createdAt: new Date().toISOString().slice(0, 19), deleted: false }
    this.pins.push(pin)
    if (this.hangAfter !== null && this.hangAfter-- === 0) {
      this.hangAfter = null
      this.hung.push(res)
      return
    }
    return this.json(res, 201, this.view(pin))
  }

  private pinAnalytics(id: string | undefined, url: URL, token: FakeToken, res: ServerResponse) {
    const pin = this.ownPin(id, token)
    if (pin === undefined) return this.error(res, 404, 50, "Pin not found.")
    const query = url.searchParams
    for (const required of ["start_date", "end_date", "metric_types"]) {
      if (query.get(required) === null) return this.error(res, 400, 1, `Invalid parameters: ${required} is required`)
    }
    const start = Date.parse(query.get("start_date")!)
    const end = Date.parse(query.get("end_date")!)
    if (Number.isNaN(start) || Number.isNaN(end) || end < start || end - start > 90 * 24 * 60 * 60 * 1000) {
      return this.error(res, 400, 1, "Invalid parameters: the date range is at most 90 days, start before end")
    }
    const counts = this.analytics.get(pin.id) ?? this.analyticsOfOthers
    const asked = query.get("metric_types")!.split(",")
    const lifetime = ["TOTAL_COMMENTS", "TOTAL_REACTIONS"]
    const pick = (names: ReadonlyArray<string>) => Object.fromEntries(names.map((name) => [name, counts[name] ?? 0]))
    return this.json(res, 200, {
      all: {
        daily_metrics: [],
        lifetime_metrics: pick(asked.filter((name) => lifetime.includes(name))),
        summary_metrics: pick(asked.filter((name) => !lifetime.includes(name)))
      }
    })
  }

  /** The presigned form: every field Pinterest named, then the file (S3 reads fields up to it). */
  private async upload(mediaId: string, req: IncomingMessage, raw: Buffer, res: ServerResponse) {
    const media = this.media.get(mediaId)
    const form = await new Response(raw, { headers: { "content-type": req.headers["content-type"] ?? "" } }).formData().catch(() => undefined)
    const file = form?.get("file")
    if (media === undefined || form === undefined || form.get("key") !== media.key || form.get("policy") === null || !(file instanceof Blob)) {
      res.writeHead(403, { "content-type": "application/xml" })
      return res.end("<Error><Code>AccessDenied</Code><Message>Invalid according to Policy</Message></Error>")
    }
    media.bytes = file.size
    media.status = file.size === 0 ? "failed" : "processing"
    res.writeHead(204)
    return res.end()
  }

  // OAuth -------------------------------------------------------------------------------------

  private authorize(url: URL, res: ServerResponse) {
    const query = url.searchParams
    if (query.get("client_id") !== this.options.clientId) return this.error(res, 400, 1, "Invalid client_id")
    const redirectUri = query.get("redirect_uri")
    if (redirectUri === null) return this.error(res, 400, 1, "redirect_uri is required")
    if (query.get("response_type") !== "code") return this.error(res, 400, 1, "response_type must be code")
    const scopes = new Set((query.get("scope") ?? "").split(","))
    for (const scope of scopes) if (!allScopes.includes(scope)) return this.error(res, 400, 1, `Invalid scope: ${scope}`)
    const code = randomBytes(20).toString("hex")
    this.codes.set(code, { redirectUri, scopes })
    const target = new URL(redirectUri)
    target.searchParams.set("code", code)
    target.searchParams.set("state", query.get("state") ?? "")
    res.writeHead(302, { location: target.toString() })
    return res.end()
  }

  private grant(userId: string, scopes: Set<string>, grantType: string, res: ServerResponse) {
    const access = `pina_${randomBytes(24).toString("base64url")}`
    const refresh = `pinr_${randomBytes(24).toString("base64url")}`
    this.tokens.set(access, { userId, scopes: new Set(scopes), expired: false })
    this.refreshTokens.set(refresh, { userId, scopes: new Set(scopes) })
    const refreshSeconds = 60 * 24 * 60 * 60
    return this.json(res, 200, {
      access_token: access,
      refresh_token: refresh,
      response_type: grantType,
      token_type: "bearer",
      expires_in: 30 * 24 * 60 * 60,
      refresh_token_expires_in: refreshSeconds,
      refresh_token_expires_at: Math.floor(Date.now() / 1000) + refreshSeconds,
      scope: [...scopes].join(",")
    })
  }

  private token(req: IncomingMessage, raw: Buffer, res: ServerResponse) {
    const form = new URLSearchParams(raw.toString("utf8"))
    this.tokenCalls.push(form.get("grant_type") ?? "")
    const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString("base64")
    if (req.headers.authorization !== `Basic ${basic}`) return this.error(res, 401, 2, "Authentication failed.")
    const wrong = pinterestOpenApi.violations(pinterestOpenApi.requestSchema("/oauth/token", "post", "application/x-www-form-urlencoded"), Object.fromEntries(form))
    if (wrong.length > 0) return this.error(res, 400, 1, `Invalid request body: ${wrong.join("; ")}`)
    if (form.get("grant_type") === "authorization_code") {
      const code = this.codes.get(form.get("code") ?? "")
      this.codes.delete(form.get("code") ?? "")
      if (code === undefined || code.redirectUri !== form.get("redirect_uri")) return this.error(res, 400, 1, "Invalid authorization code.")
      return this.grant(this.user.id, code.scopes, "authorization_code", res)
    }
    if (form.get("grant_type") === "refresh_token") {
      const old = this.refreshTokens.get(form.get("refresh_token") ?? "")
      if (old === undefined) return this.error(res, 400, 1, "Invalid refresh token.")
      // Continuous refresh: the old refresh token is spent, a new one answers.
      this.refreshTokens.delete(form.get("refresh_token") ?? "")
      return this.grant(old.userId, old.scopes, "refresh_token", res)
    }
    return this.error(res, 400, 1, "Unsupported grant_type")
  }
}

const mediaCount = (source: unknown): number => {
  const typed = source as { source_type?: string; items?: ReadonlyArray<unknown> } | undefined
  return typed?.source_type === "multiple_image_base64" || typed?.source_type === "multiple_image_urls" ? typed.items?.length ?? 0 : typed === undefined ? 0 : 1
}
