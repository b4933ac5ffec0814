/**
 * A fake of LinkedIn on loopback: the OAuth endpoints (www.linkedin.com/oauth/v2/...), OpenID
 * userinfo (/v2/userinfo) and the versioned REST API (/rest/...) at their documented paths, with
 * LinkedIn's reply shapes, headers and error envelopes (`{ status, serviceErrorCode, code,
 * message }`), and the refusals LinkedIn makes: no or expired token, missing or retired
 * LinkedIn-Version, missing Rest.li protocol header, a missing scope, a commentary over 3,000
 * characters, a duplicate post, media that is not AVAILABLE, a video part of the wrong size.
 * Media is uploaded to upload URLs it hands out and goes through LinkedIn's processing states.
 */
import { createHash, randomBytes } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { LoopbackFake } from "../kit/LoopbackFake.js"
import type { FakeControls } from "../kit/publisherContract.js"

export interface FakeMember {
  readonly sub: string
  readonly name: string
  /** Organisation ids this member administers. */
  readonly organizations: ReadonlyArray<string>
  /** Pages where the member holds another role (not ADMINISTRATOR), or an administrator role still pending. */
  readonly otherRoles?: ReadonlyArray<{ readonly organization: string; readonly role: string; readonly state: "APPROVED" | "REQUESTED" }>
  /** Each page's vanity name; `page-<id>` where none is given. */
  readonly vanityNames?: Readonly<Record<string, string>>
}

export interface FakeOptions {
  readonly clientId: string
  readonly clientSecret: string
  readonly member?: FakeMember
  /** Give refresh tokens (approved partner apps) or not (self-serve apps). */
  readonly refreshTokens?: boolean
  /** The LinkedIn-Version values served; others answer 426 NONEXISTENT_VERSION. */
  readonly activeVersions?: (version: string) => boolean
  /** Video part size the fake asks for (LinkedIn's is 4 MB). */
  readonly videoPartBytes?: number
  /** Status reads a video stays PROCESSING after finalizeUpload. */
  readonly videoProcessingReads?: number
}

export interface FakePost {
  readonly id: string
  readonly author: string
  /** The commentary as sent (little text). */
  readonly commentary: string
  /** What LinkedIn prints: the little text read, cut at the first markup it cannot parse. */
  readonly printed: string
  readonly content: Record<string, unknown> | undefined
  readonly createdAt: number
  deleted: boolean
}

interface FakeMedia {
  readonly urn: string
  readonly kind: "image" | "video" | "document"
  readonly owner: string
  status: "WAITING_UPLOAD" | "PROCESSING" | "AVAILABLE" | "PROCESSING_FAILED"
  bytes: Buffer
  size: number
  parts: Array<{ firstByte: number; lastByte: number; etag: string | null }>
  uploadToken: string
  processingReads: number
}

interface FakeToken {
  readonly sub: string
  scopes: Set<string>
  expiresAt: number
  refreshToken: string | null
}

export interface Fault {
  readonly status: number
  readonly body?: unknown
  readonly headers?: Record<string, string>
}

/** The request bodies as the fake reads them: anything may be missing or of the wrong type. */
interface RequestBody {
  readonly initializeUploadRequest?: { readonly owner?: unknown; readonly fileSizeBytes?: unknown }
  readonly finalizeUploadRequest?: { readonly video?: string; readonly uploadToken?: unknown; readonly uploadedPartIds?: unknown }
  readonly author?: unknown
  readonly commentary?: unknown
  readonly content?: {
    readonly media?: { readonly id: string; readonly title?: unknown }
    readonly multiImage?: { readonly images?: ReadonlyArray<{ readonly id: string; readonly title?: unknown }> }
  }
  readonly [field: string]: unknown
}

const restliIdPattern = /^urn:li:(person|organization):/

/** LinkedIn's default scopes when the authorize call names none is an error; the fake follows. */
const defaultMember: FakeMember = { sub: "aBcD3fGh1J", name: "Ada Lovelace", organizations: ["2414183"], vanityNames: { "2414183": "devtestco" } }

const digits = (count: number) => {
  let out = String(1 + Math.floor(Math.random() * 9))
  while (out.length < count) out += String(Math.floor(Math.random() * 10))
  return out
}

/** The little text LinkedIn prints: escapes read, cut at the first unescaped markup character. */
export const printLittleText = (little: string): string => {
  let out = ""
  for (let i = 0; i < little.length; i++) {
    const character = little[i]!
    if (character === "\\" && i + 1 < little.length) {
      out += little[++i]
      continue
    }
    if (character === "#" && /[\p{L}\p{N}]/u.test(little[i + 1] ?? "") && (i === 0 || /\s/.test(little[i - 1]!))) {
      out += character
      continue
    }
    if ("|{}@[]()<>#*_~".includes(character) && !insideLink(little, i)) return out
    out += character
  }
  return out
}

const insideLink = (text: string, index: number) => {
  for (const match of text.matchAll(/https?:\/\/\S+/g)) {
    if (index >= match.index && index < match.index + match[0].length) return true
  }
  return false
}

export class LinkedinFake extends LoopbackFake {
  private readonly records: Array<FakePost> = []
  private refreshCount = 0
  readonly media = new Map<string, FakeMedia>()
  readonly statistics = new Map<string, Record<string, number>>()
  /** Every API call, as `METHOD /path?query`, for tests asserting what was (not) called. */
  readonly calls: Array<string> = []
  /** Calls to the token endpoint, by grant type. */
  readonly tokenCalls: Array<string> = []
  private readonly tokens = new Map<string, FakeToken>()
  private readonly codes = new Map<string, { scopes: Set<string>; redirectUri: string; sub: string }>()
  private readonly faults: Array<Fault | "hang" | "lose"> = []
  readonly member: FakeMember

  constructor(readonly options: FakeOptions) {
    super()
    this.member = options.member ?? defaultMember
  }

  protected crashed(res: ServerResponse, error: unknown): void {
    this.json(res, 500, { status: 500, message: String(error) })
  }


  // -------------------------------------------------------------------------------------------
  // Hooks for tests (KIT-SPEC's fake handle)
  // -------------------------------------------------------------------------------------------

  /** The next API call (not the OAuth endpoints) answers this instead. */
  failNext(fault: Fault): void {
    this.faults.push(fault)
  }

  /** The next API call is carried out, but its answer never comes (the connection stays open). */
  hangNext(): void {
    this.faults.push("hang")
  }

  /** The next API call is carried out, but its answer is lost (the connection drops). */
  loseAnswerNext(): void {
    this.faults.push("lose")
  }

  /** Every token issued so far has expired (refresh tokens still work). */
  expireToken(): void {
    for (const token of this.tokens.values()) token.expiresAt = 0
  }

  /** The member removed the app: access and refresh tokens both stop working. */
  revokeGrant(): void {
    this.tokens.clear()
  }

  /** The member took a scope back from every token. */
  revokeScope(scope: string): void {
    for (const token of this.tokens.values()) token.scopes.delete(scope)
  }

  /** Live posts, as LinkedIn holds them. */
  livePosts(): ReadonlyArray<FakePost> {
    return this.records.filter((post) => !post.deleted)
  }

  /** The kit's view of the fake (publisherContract's FakeControls). */
  controls(): FakeControls {
    return {
      failNext: (reply) => this.failNext(reply),
      hangNext: () => this.hangNext(),
      expireToken: () => this.expireToken(),
      revokeGrant: () => this.revokeGrant(),
      revokeScope: (scope) => this.revokeScope(scope),
      publishScope: "w_member_social",
      posts: () =>
        this.livePosts().map((post) => ({
          id: post.id,
          text: post.printed === "" ? null : post.printed,
          media: post.content?.["multiImage"] !== undefined
            ? (post.content["multiImage"] as { images: ReadonlyArray<unknown> }).images.length
            : post.content?.["media"] === undefined ? 0 : 1
        })),
      refreshes: () => this.refreshCount
    }
  }

  /** Issues a token directly, as an app holding one already would (setup of reads only). */
  issueToken(scopes: ReadonlyArray<string>): string {
    return this.mintToken(this.member.sub, new Set(scopes)).access
  }

  /** Follows a consent URL as the member would, approving it; answers where LinkedIn redirects. */
  async consent(authorizeUrl: string): Promise<URL> {
    const response = await fetch(authorizeUrl, { redirect: "manual" })
    const location = response.headers.get("location")
    if (response.status !== 302 || location === null) throw new Error(`consent answered ${response.status}: ${await response.text()}`)
    return new URL(location)
  }

  // -------------------------------------------------------------------------------------------

  /** A new access token; a refresh keeps its refresh token (good for 365 days from the first grant). */
  private mintToken(sub: string, scopes: Set<string>, keptRefreshToken: string | null = null) {
    const access = `AQ${randomBytes(24).toString("base64url")}`
    const refreshToken = keptRefreshToken ?? (this.options.refreshTokens === true ? `AQX${randomBytes(24).toString("base64url")}` : null)
    this.tokens.set(access, { sub, scopes, expiresAt: Date.now() + 5_184_000_000, refreshToken })
    return { access, refreshToken }
  }

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    const text = body === undefined ? "" : JSON.stringify(body)
    res.writeHead(status, { ...(text === "" ? {} : { "content-type": "application/json" }), ...headers })
    res.end(text)
  }

  private error(res: ServerResponse, status: number, code: string, message: string, extra: Record<string, unknown> = {}, serviceErrorCode = 100) {
    this.json(res, status, { status, serviceErrorCode, code, message, ...extra })
  }

  private async body(req: IncomingMessage): Promise<Buffer> {
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", this.url)
    const path = url.pathname
    if (path.startsWith("/oauth/v2/")) return this.oauth(req, res, url)
    this.calls.push(`${req.method} ${path}${url.search}`)
    const fault = this.faults.shift()
    if (fault === "hang") {
      res.writeHead = () => res
      res.end = () => {
        this.hung.push(res)
        return res
      }
    } else if (fault === "lose") {
      res.writeHead = () => res
      res.end = () => res.destroy()
    } else if (fault !== undefined) {
      await this.body(req)
      return this.json(res, fault.status, fault.body, fault.headers)
    }
    const token = this.authenticate(req, res)
    if (token === undefined) return
    if (path.startsWith("/dms-uploads/")) return this.upload(req, res, path)
    if (path === "/v2/userinfo" && req.method === "GET") {
      if (!token.scopes.has("openid")) return this.error(res, 403, "ACCESS_DENIED", "Not enough permissions to access: userinfo.GET.NO_VERSION")
      return this.json(res, 200, { sub: token.sub, name: this.member.name, given_name: this.member.name.split(" ")[0], locale: { country: "GB", language: "en" } })
    }
    if (!path.startsWith("/rest/")) return this.error(res, 404, "NOT_FOUND", `No resource found at ${path}`)
    const version = req.headers["linkedin-version"]
    if (typeof version !== "string") {
      return this.error(res, 400, "VERSION_MISSING", "A version must be present. Please specify a version by adding the LinkedIn-Version header.")
    }
    if (!(this.options.activeVersions ?? ((v: string) => /^2026(0[1-9]|1[0-2])$/.test(v)))(version)) {
      return this.error(res, 426, "NONEXISTENT_VERSION", `Requested version ${version} is not active`)
    }
    if (req.headers["x-restli-protocol-version"] !== "2.0.0") {
      return this.error(res, 400, "ILLEGAL_ARGUMENT", "This resource is served with Rest.li protocol 2.0.0 only (X-Restli-Protocol-Version)")
    }
    const raw = await this.body(req)
    let body: RequestBody | undefined = undefined
    if (req.method === "POST") {
      if (!(req.headers["content-type"] ?? "").startsWith("application/json")) {
        return this.error(res, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json")
      }
      try {
        body = JSON.parse(raw.toString("utf8")) as RequestBody
      } catch {
        return this.error(res, 400, "ILLEGAL_ARGUMENT", "Unable to parse the request body")
      }
    }
    return this.rest(req.method ?? "GET", url, token, body, res)
  }

  /** The bearer token's grant, or undefined after answering 401 as LinkedIn does. */
  private authenticate(req: IncomingMessage, res: ServerResponse): FakeToken | undefined {
    const header = req.headers.authorization
    if (header === undefined || !header.startsWith("Bearer ")) {
      this.error(res, 401, "EMPTY_ACCESS_TOKEN", "Empty oauth2_access_token", {}, 65604)
      return undefined
    }
    const token = this.tokens.get(header.slice("Bearer ".length))
    if (token === undefined) {
      this.error(res, 401, "INVALID_ACCESS_TOKEN", "Invalid access token", {}, 65600)
      return undefined
    }
    if (token.expiresAt <= Date.now()) {
      this.error(res, 401, "EXPIRED_ACCESS_TOKEN", "The token used in the request has expired", {}, 65601)
      return undefined
    }
    return token
  }

  // -------------------------------------------------------------------------------------------
  // OAuth
  // -------------------------------------------------------------------------------------------

  private async oauth(req: IncomingMessage, res: ServerResponse, url: URL) {
    const path = url.pathname
    if (path === "/oauth/v2/authorization" && req.method === "GET") {
      const query = url.searchParams
      if (query.get("client_id") !== this.options.clientId) {
        return this.json(res, 400, { error: "invalid_client_id", error_description: "The passed in client_id is invalid" })
      }
      const redirectUri = query.get("redirect_uri")
      if (redirectUri === null) return this.json(res, 400, { error: "invalid_request", error_description: "redirect_uri is missing" })
      const target = new URL(redirectUri)
      if (query.get("response_type") !== "code") {
        target.searchParams.set("error", "unsupported_response_type")
      } else if ((query.get("scope") ?? "") === "") {
        target.searchParams.set("error", "invalid_scope")
        target.searchParams.set("error_description", "scope is missing")
      } else {
        const code = `AQT${randomBytes(16).toString("base64url")}`
        this.codes.set(code, { scopes: new Set(query.get("scope")!.split(" ")), redirectUri, sub: this.member.sub })
        target.searchParams.set("code", code)
      }
      if (query.get("state") !== null) target.searchParams.set("state", query.get("state")!)
      res.writeHead(302, { location: target.toString() })
      return res.end()
    }
    if (req.method !== "POST") return this.json(res, 405, { error: "invalid_request", error_description: "method not allowed" })
    if (!(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) {
      await this.body(req)
      return this.json(res, 400, { error: "invalid_request", error_description: "Content-Type must be application/x-www-form-urlencoded" })
    }
    const form = new URLSearchParams((await this.body(req)).toString("utf8"))
    if (form.get("client_id") !== this.options.clientId || form.get("client_secret") !== this.options.clientSecret) {
      return this.json(res, 401, { error: "invalid_client", error_description: "Client authentication failed" })
    }
    if (path === "/oauth/v2/accessToken") return this.accessToken(res, form)
    if (path === "/oauth/v2/introspectToken") {
      const token = this.tokens.get(form.get("token") ?? "")
      if (token === undefined) return this.json(res, 200, { active: false })
      const expired = token.expiresAt <= Date.now()
      return this.json(res, 200, {
        active: !expired,
        client_id: this.options.clientId,
        authorized_at: Math.floor((token.expiresAt - 5_184_000_000) / 1000),
        created_at: Math.floor((token.expiresAt - 5_184_000_000) / 1000),
        status: expired ? "expired" : "active",
        expires_at: Math.floor(token.expiresAt / 1000),
        scope: [...token.scopes].join(","),
        auth_type: "3L"
      })
    }
    return this.json(res, 404, { error: "not_found" })
  }

  private accessToken(res: ServerResponse, form: URLSearchParams) {
    const grantType = form.get("grant_type") ?? ""
    this.tokenCalls.push(grantType)
    const reply = (sub: string, scopes: Set<string>, keptRefreshToken: string | null = null) => {
      const minted = this.mintToken(sub, scopes, keptRefreshToken)
      return this.json(res, 200, {
        access_token: minted.access,
        expires_in: 5_184_000,
        scope: [...scopes].join(","),
        ...(minted.refreshToken === null ? {} : { refresh_token: minted.refreshToken, refresh_token_expires_in: 31_536_000 })
      })
    }
    if (grantType === "authorization_code") {
      const code = this.codes.get(form.get("code") ?? "")
      this.codes.delete(form.get("code") ?? "")
      if (code === undefined || code.redirectUri !== form.get("redirect_uri")) {
        return this.json(res, 400, { error: "invalid_request", error_description: "Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired. Or external member binding exists" })
      }
      return reply(code.sub, code.scopes)
    }
    if (grantType === "refresh_token") {
      const entry = [...this.tokens.entries()].find(([, token]) => token.refreshToken !== null && token.refreshToken === form.get("refresh_token"))
      if (entry === undefined) return this.json(res, 400, { error: "invalid_grant", error_description: "Token has been expired or revoked." })
      this.refreshCount++
      return reply(entry[1].sub, new Set(entry[1].scopes), entry[1].refreshToken)
    }
    return this.json(res, 400, { error: "unsupported_grant_type", error_description: `grant_type ${grantType} is not supported` })
  }

  // -------------------------------------------------------------------------------------------
  // REST resources
  // -------------------------------------------------------------------------------------------

  /**
   * GET /rest/organizationAcls?q=roleAssignee: the token's member's roles on pages, filtered by
   * `role` and `state` when given, paged by `start` and `count` (default 10). Needs
   * rw_organization_admin or r_organization_admin.
   */
  private organizationAcls(token: FakeToken, url: URL, res: ServerResponse) {
    if (!token.scopes.has("rw_organization_admin") && !token.scopes.has("r_organization_admin")) {
      return this.error(res, 403, "ACCESS_DENIED", "Not enough permissions to access: organizationAcls.FINDER-roleAssignee.20260801")
    }
    if (url.searchParams.get("q") !== "roleAssignee") return this.error(res, 400, "ILLEGAL_ARGUMENT", "q must be roleAssignee or organization")
    const roleAssignee = `urn:li:person:${token.sub}`
    const all = [
      ...this.member.organizations.map((id) => ({ organization: id, role: "ADMINISTRATOR", state: "APPROVED" })),
      ...(this.member.otherRoles ?? [])
    ].filter((acl) =>
      (url.searchParams.get("role") ?? acl.role) === acl.role && (url.searchParams.get("state") ?? acl.state) === acl.state
    )
    const start = Number(url.searchParams.get("start") ?? "0")
    const count = Number(url.searchParams.get("count") ?? "10")
    const elements = all.slice(start, start + count).map((acl) => ({
      roleAssignee,
      role: acl.role,
      state: acl.state,
      organization: `urn:li:organization:${acl.organization}`
    }))
    return this.json(res, 200, { elements, paging: { start, count, total: all.length, links: [] } })
  }

  /** The author the token may post as, or a 403 answered. */
  private mayActAs(token: FakeToken, author: string, res: ServerResponse, write: boolean): boolean {
    const organization = author.startsWith("urn:li:organization:") ? author.slice("urn:li:organization:".length) : null
    const scope = organization === null ? (write ? "w_member_social" : "r_member_social") : (write ? "w_organization_social" : "r_organization_social")
    const allowed = organization === null ? author === `urn:li:person:${token.sub}` : this.member.organizations.includes(organization)
    if (allowed && token.scopes.has(scope)) return true
    this.error(res, 403, "ACCESS_DENIED", `Not enough permissions to access: ${write ? "partnerApiPostsExternal.CREATE" : "partnerApiPostsExternal.FINDER-author"}.20260801`)
    return false
  }

  private rest(method: string, url: URL, token: FakeToken, body: RequestBody | undefined, res: ServerResponse) {
    const path = url.pathname
    const action = url.searchParams.get("action")
    const mediaPath = /^\/rest\/(images|videos|documents)$/.exec(path)
    if (mediaPath !== null && method === "POST" && action === "initializeUpload") return this.initialize(mediaPath[1] as "images" | "videos" | "documents", token, body, res)
    if (path === "/rest/videos" && method === "POST" && action === "finalizeUpload") return this.finalize(body, res)
    const mediaItem = /^\/rest\/(images|videos|documents)\/(.+)$/.exec(path)
    if (mediaItem !== null && method === "GET") return this.mediaStatus(decodeURIComponent(mediaItem[2]!), res)
    if (path === "/rest/posts" && method === "POST") return this.createPost(token, body, res)
    if (path === "/rest/posts" && method === "GET" && url.searchParams.get("q") === "author") {
      const author = url.searchParams.get("author") ?? ""
      if (!this.mayActAs(token, author, res, false)) return
      const count = Number(url.searchParams.get("count") ?? "10")
      const elements = this.livePosts().filter((post) => post.author === author).sort((a, b) => b.createdAt - a.createdAt).slice(0, count)
      return this.json(res, 200, { elements: elements.map((post) => this.postView(post)), paging: { start: 0, count, total: elements.length } })
    }
    const postItem = /^\/rest\/posts\/(.+)$/.exec(path)
    if (postItem !== null && method === "DELETE") {
      const urn = decodeURIComponent(postItem[1]!)
      const post = this.livePosts().find((candidate) => candidate.id === urn)
      if (post === undefined) return this.error(res, 404, "NOT_FOUND", `Post ${urn} not found`)
      if (!this.mayActAs(token, post.author, res, true)) return
      post.deleted = true
      res.writeHead(204)
      return res.end()
    }
    const organization = /^\/rest\/organizations\/(\d+)$/.exec(path)
    if (organization !== null && method === "GET") {
      if (!this.member.organizations.includes(organization[1]!)) return this.error(res, 404, "NOT_FOUND", "Organization not found")
      const vanityName = this.member.vanityNames?.[organization[1]!] ?? `page-${organization[1]}`
      return this.json(res, 200, { id: Number(organization[1]), localizedName: vanityName.replace(/^./, (first) => first.toUpperCase()), vanityName })
    }
    if (path === "/rest/organizationAcls" && method === "GET") return this.organizationAcls(token, url, res)
    if (path === "/rest/organizationalEntityShareStatistics" && method === "GET") return this.shareStatistics(token, url, res)
    if (path === "/rest/memberCreatorPostAnalytics" && method === "GET") return this.memberAnalytics(token, url, res)
    return this.error(res, 404, "NOT_FOUND", `No resource found at ${method} ${path}`)
  }

  private initialize(kind: "images" | "videos" | "documents", token: FakeToken, body: RequestBody | undefined, res: ServerResponse) {
    const request = body?.initializeUploadRequest
    if (typeof request?.owner !== "string" || !restliIdPattern.test(request.owner)) {
      return this.error(res, 422, "UNPROCESSABLE_ENTITY", "/initializeUploadRequest/owner :: field is required and must be a person or organization URN")
    }
    if (!this.mayActAs(token, request.owner, res, true)) return
    const id = `D${randomBytes(12).toString("hex")}`
    const single = kind === "images" ? "image" : kind === "videos" ? "video" : "document"
    const urn = `urn:li:${single}:${id}`
    const item: FakeMedia = {
      urn,
      kind: single,
      owner: request.owner,
      status: "WAITING_UPLOAD",
      bytes: Buffer.alloc(0),
      size: 0,
      parts: [],
      uploadToken: "",
      processingReads: 0
    }
    this.media.set(urn, item)
    const expires = Date.now() + 24 * 3600 * 1000
    if (single !== "video") {
      return this.json(res, 200, { value: { uploadUrlExpiresAt: expires, uploadUrl: `${this.url}/dms-uploads/${id}`, [single]: urn } })
    }
    const size = request.fileSizeBytes
    if (typeof size !== "number" || !Number.isInteger(size) || size <= 0) {
      return this.error(res, 422, "UNPROCESSABLE_ENTITY", "/initializeUploadRequest/fileSizeBytes :: field is required")
    }
    const partBytes = this.options.videoPartBytes ?? 4 * 1024 * 1024
    item.size = size
    item.uploadToken = randomBytes(8).toString("hex")
    for (let first = 0; first < size; first += partBytes) item.parts.push({ firstByte: first, lastByte: Math.min(size, first + partBytes) - 1, etag: null })
    return this.json(res, 200, {
      value: {
        uploadUrlsExpireAt: expires,
        video: urn,
        uploadInstructions: item.parts.map((part, index) => ({ uploadUrl: `${this.url}/dms-uploads/${id}/part/${index}`, firstByte: part.firstByte, lastByte: part.lastByte })),
        uploadToken: item.uploadToken,
        captionsUploadUrl: null,
        thumbnailUploadUrl: null
      }
    })
  }

  private async upload(req: IncomingMessage, res: ServerResponse, path: string) {
    const match = /^\/dms-uploads\/(D[0-9a-f]+)(?:\/part\/(\d+))?$/.exec(path)
    const bytes = await this.body(req)
    const item = match === null ? undefined : [...this.media.values()].find((candidate) => candidate.urn.endsWith(`:${match[1]}`))
    if (req.method !== "PUT" || match === null || item === undefined) return this.error(res, 404, "NOT_FOUND", "No upload at this URL")
    if (item.kind !== "video") {
      if (item.kind === "document" && bytes.subarray(0, 5).toString("latin1") !== "%PDF-") {
        return this.error(res, 400, "BAD_REQUEST", "The uploaded file is not a supported document (PDF, PPT, PPTX, DOC, DOCX)")
      }
      if (bytes.length === 0) return this.error(res, 400, "BAD_REQUEST", "Empty upload")
      item.bytes = bytes
      item.status = "AVAILABLE"
      res.writeHead(201)
      return res.end()
    }
    const part = item.parts[Number(match[2])]
    if (part === undefined) return this.error(res, 404, "NOT_FOUND", "No such part")
    if (bytes.length !== part.lastByte - part.firstByte + 1) {
      return this.error(res, 400, "BAD_REQUEST", `Part must be ${part.lastByte - part.firstByte + 1} bytes, got ${bytes.length}`)
    }
    part.etag = `/ambry-video/signedId/${createHash("sha256").update(bytes).digest("hex").slice(0, 24)}`
    item.bytes = Buffer.concat([item.bytes, bytes])
    res.writeHead(200, { etag: part.etag })
    return res.end()
  }

  private finalize(body: RequestBody | undefined, res: ServerResponse) {
    const request = body?.finalizeUploadRequest
    const item = this.media.get(request?.video ?? "")
    if (request === undefined || item === undefined) return this.error(res, 404, "NOT_FOUND", `Video ${request?.video} not found`)
    if (request.uploadToken !== item.uploadToken) return this.error(res, 400, "BAD_REQUEST", "uploadToken does not match")
    const expected = item.parts.map((part) => part.etag)
    if (expected.some((etag) => etag === null) || JSON.stringify(request.uploadedPartIds) !== JSON.stringify(expected)) {
      return this.error(res, 400, "BAD_REQUEST", "uploadedPartIds do not match the uploaded parts")
    }
    item.status = "PROCESSING"
    item.processingReads = this.options.videoProcessingReads ?? 1
    return this.json(res, 200, {})
  }

  private mediaStatus(urn: string, res: ServerResponse) {
    const item = this.media.get(urn)
    if (item === undefined) return this.error(res, 404, "NOT_FOUND", `${urn} not found`)
    if (item.status === "PROCESSING" && item.processingReads-- <= 0) item.status = "AVAILABLE"
    return this.json(res, 200, {
      id: urn,
      owner: item.owner,
      status: item.status,
      ...(item.status === "PROCESSING_FAILED" ? { processingFailureReason: "Video is corrupt" } : {})
    })
  }

  /** Fails the processing of the next video finalised (LinkedIn's PROCESSING_FAILED). */
  failVideoProcessing(): void {
    const original = this.finalize.bind(this)
    this.finalize = (body: RequestBody | undefined, res: ServerResponse) => {
      this.finalize = original
      original(body, res)
      const item = this.media.get(body?.finalizeUploadRequest?.video ?? "")
      if (item !== undefined) item.status = "PROCESSING_FAILED"
    }
  }

  private createPost(token: FakeToken, sent: RequestBody | undefined, res: ServerResponse) {
    const body: RequestBody = sent ?? {}
    const author = body.author
    if (typeof author !== "string" || !restliIdPattern.test(author)) return this.error(res, 422, "UNPROCESSABLE_ENTITY", "/author :: field is required")
    for (const field of ["visibility", "distribution", "lifecycleState"]) {
      if (body[field] === undefined) return this.error(res, 422, "UNPROCESSABLE_ENTITY", `/${field} :: field is required`)
    }
    if (!this.mayActAs(token, author, res, true)) return
    const commentary: string = typeof body.commentary === "string" ? body.commentary : ""
    const printed = printLittleText(commentary)
    if ([...printed].length > 3000) {
      return this.error(res, 422, "UNPROCESSABLE_ENTITY", `/commentary :: length ${[...printed].length} exceeds maximum length 3000`, {
        errorDetailType: "com.linkedin.common.error.BadRequest",
        errorDetails: { inputErrors: [{ code: "MAX_LENGTH_EXCEEDED", input: { inputPath: { fieldPath: "/commentary" } } }] }
      })
    }
    const ids: ReadonlyArray<{ readonly id: string; readonly title?: unknown }> = body.content?.multiImage?.images ?? (body.content?.media === undefined ? [] : [body.content.media])
    if (body.content?.multiImage !== undefined && (ids.length < 2 || ids.length > 20)) {
      return this.error(res, 422, "UNPROCESSABLE_ENTITY", "/content/multiImage/images :: a MultiImage post holds 2 to 20 images")
    }
    for (const entry of ids) {
      const item = this.media.get(entry.id)
      if (item === undefined || item.owner !== author) return this.error(res, 400, "BAD_REQUEST", `/content/media/id :: ${entry.id} not found for author ${author}`)
      if (item.status !== "AVAILABLE") return this.error(res, 400, "BAD_REQUEST", `/content/media/id :: ${entry.id} is ${item.status}, not AVAILABLE (processing error)`)
      if (item.kind === "document" && (typeof entry.title !== "string" || entry.title === "")) {
        return this.error(res, 422, "UNPROCESSABLE_ENTITY", "/content/media/title :: a document post needs a title")
      }
    }
    const duplicate = commentary === "" ? undefined : this.records.find((post) => post.author === author && post.commentary === commentary)
    if (duplicate !== undefined) {
      return this.error(res, 422, "UNPROCESSABLE_ENTITY", `Content is a duplicate of ${duplicate.id}`, {
        errorDetailType: "com.linkedin.common.error.BadRequest",
        errorDetails: { inputErrors: [{ code: "DUPLICATE_POST", description: "Duplicate post is detected", input: {} }] }
      })
    }
    const id = `urn:li:share:${digits(19)}`
    this.records.push({ id, author, commentary, printed, content: body.content, createdAt: Date.now(), deleted: false })
    res.writeHead(201, { "x-restli-id": id, "x-linkedin-id": id })
    return res.end()
  }

  private postView(post: FakePost) {
    return {
      id: post.id,
      author: post.author,
      commentary: post.commentary,
      visibility: "PUBLIC",
      distribution: { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] },
      ...(post.content === undefined ? {} : { content: post.content }),
      lifecycleState: "PUBLISHED",
      isReshareDisabledByAuthor: false,
      createdAt: post.createdAt,
      lastModifiedAt: post.createdAt,
      publishedAt: post.createdAt
    }
  }

  private shareStatistics(token: FakeToken, url: URL, res: ServerResponse) {
    const entity = url.searchParams.get("organizationalEntity") ?? ""
    if (url.searchParams.get("q") !== "organizationalEntity" || !entity.startsWith("urn:li:organization:")) {
      return this.error(res, 400, "ILLEGAL_ARGUMENT", "q=organizationalEntity and an organization URN are required")
    }
    if (!this.mayActAs(token, entity, res, false)) return
    const list = /^List\((.*)\)$/.exec(url.searchParams.get("shares") ?? url.searchParams.get("ugcPosts") ?? "")
    if (list === null) return this.error(res, 400, "ILLEGAL_ARGUMENT", "shares must be a Rest.li 2.0 List(...)")
    const urns = list[1]!.split(",").map((urn) => decodeURIComponent(urn))
    const elements = urns.flatMap((urn) => {
      const post = this.livePosts().find((candidate) => candidate.id === urn && candidate.author === entity)
      if (post === undefined) return []
      const stats = this.statistics.get(urn) ?? {}
      return [{
        organizationalEntity: entity,
        share: urn,
        totalShareStatistics: {
          uniqueImpressionsCount: 0,
          shareCount: 0,
          engagement: 0,
          clickCount: 0,
          likeCount: 0,
          impressionCount: 0,
          commentCount: 0,
          ...stats
        }
      }]
    })
    return this.json(res, 200, { paging: { start: 0, count: 10, links: [] }, elements })
  }

  private memberAnalytics(token: FakeToken, url: URL, res: ServerResponse) {
    if (!token.scopes.has("r_member_postAnalytics")) {
      return this.error(res, 403, "ACCESS_DENIED", "Not enough permissions to access: memberCreatorPostAnalytics.FINDER-entity.20260801")
    }
    const entity = /^\((share|ugc):(.+)\)$/.exec(url.searchParams.get("entity") ?? "")
    const queryType = url.searchParams.get("queryType") ?? ""
    if (entity === null || url.searchParams.get("q") !== "entity") return this.error(res, 400, "ILLEGAL_ARGUMENT", "entity must be (share:urn) or (ugc:urn)")
    const urn = decodeURIComponent(entity[2]!)
    const post = this.livePosts().find((candidate) => candidate.id === urn && candidate.author === `urn:li:person:${token.sub}`)
    if (post === undefined) return this.error(res, 404, "NOT_FOUND", `${urn} not found`)
    const names: Record<string, string> = {
      IMPRESSION: "impressionCount",
      MEMBERS_REACHED: "uniqueImpressionsCount",
      REACTION: "likeCount",
      COMMENT: "commentCount",
      RESHARE: "shareCount"
    }
    if (names[queryType] === undefined) return this.error(res, 400, "ILLEGAL_ARGUMENT", `queryType ${queryType} is not supported`)
    const count = this.statistics.get(urn)?.[names[queryType]!] ?? 0
    return this.json(res, 200, { paging: { start: 0, count: 10, links: [] }, elements: [{ count, metricType: { [queryType]: {} } }] })
  }
}
