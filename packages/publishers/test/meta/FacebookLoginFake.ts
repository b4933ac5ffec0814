/**
 * Facebook Login as graph.facebook.com and facebook.com document it, for the fakes of the routes
 * that use it (Facebook Pages, Instagram's Facebook Login route): the login dialog
 * (/{version}/dialog/oauth, approved at once: 302 to the redirect_uri with code and state), the
 * token endpoint (/{version}/oauth/access_token: a code for a short-lived user token, then
 * fb_exchange_token for a long-lived one), /me/accounts (the Pages the user manages, with their
 * tokens, tasks and linked Instagram accounts, paged by cursor) and /{page-id} read with a user
 * token (the Page's token asked for again). It holds the user and Page tokens; a platform fake
 * asks it who a token is.
 */
import { randomBytes } from "node:crypto"
import type { GraphReply, GraphRequest } from "./GraphFakeServer.js"

export interface FakePage {
  readonly id: string
  readonly name: string
  readonly tasks: ReadonlyArray<string>
  readonly instagram?: { readonly id: string; readonly username: string }
  /** false: the listing's instagram_business_account carries its id alone (the username is read from Instagram). */
  readonly listsUsername?: boolean
}

export interface FacebookLoginFakeOptions {
  readonly clientId: string
  readonly clientSecret: string
  /** The version the fake serves (the pinned one); any other is refused as a retired version is. */
  readonly version: string
  readonly user?: { readonly id: string; readonly name: string }
  readonly pages?: ReadonlyArray<FakePage>
  /** Pages the user does not tick in the dialog: listed, without a token. */
  readonly withheld?: ReadonlyArray<string>
  /** Permissions the dialog accepts (any other is refused as an invalid scope). */
  readonly permissions: ReadonlyArray<string>
}

export interface UserTokenRecord {
  readonly kind: "short" | "long"
  readonly scopes: Set<string>
  valid: boolean
}

export interface PageTokenRecord {
  readonly pageId: string
  /** The user token it was obtained with: the Page token shares its permissions. */
  readonly user: UserTokenRecord
  valid: boolean
}

const longLivedSeconds = 5183944

export class FacebookLoginFake {
  readonly user: { readonly id: string; readonly name: string }
  pages: Array<FakePage>
  /** Token endpoint calls, by kind: "code", "fb_exchange_token"; and "page_token" for a Page token asked for again. */
  readonly tokenCalls: Array<string> = []
  /** The scopes and config_id of each dialog opened. */
  readonly dialogs: Array<URLSearchParams> = []
  private readonly codes = new Map<string, { redirectUri: string; scopes: Set<string> }>()
  private readonly userTokens = new Map<string, UserTokenRecord>()
  private readonly pageTokens = new Map<string, PageTokenRecord>()

  constructor(readonly options: FacebookLoginFakeOptions) {
    this.user = options.user ?? { id: "10158000000000001", name: "Ada Lovelace" }
    this.pages = [...(options.pages ?? [])]
  }

  /** The user token or Page token a call carries, if it is one the fake issued. */
  userToken(token: string | undefined): UserTokenRecord | undefined {
    return token === undefined ? undefined : this.userTokens.get(token)
  }

  pageToken(token: string | undefined): PageTokenRecord | undefined {
    return token === undefined ? undefined : this.pageTokens.get(token)
  }

  /** Page tokens stop working (a session invalidated); the user token still gets new ones. */
  invalidatePageTokens(): void {
    for (const record of this.pageTokens.values()) record.valid = false
  }

  /** The user removed the app: every token dead. */
  revokeGrant(): void {
    for (const record of this.userTokens.values()) record.valid = false
    for (const record of this.pageTokens.values()) record.valid = false
  }

  revokePermission(permission: string): void {
    for (const record of this.userTokens.values()) record.scopes.delete(permission)
  }

  /** Whether this request is one of Facebook Login's (the dialog, the token endpoint, the Page listing). */
  handles(request: GraphRequest): boolean {
    const [first, second] = request.parts
    if (first === "dialog" && second === "oauth") return true
    if (first === "oauth" && second === "access_token") return true
    if (first === "me" && second === "accounts") return true
    // A Page read with a user token: its token asked for again.
    return request.parts.length === 1 && this.userToken(request.token) !== undefined && this.pages.some((page) => page.id === first)
  }

  /** Whether faults and hangs a test injects skip this request (the dialog and the token endpoint). */
  exempt(request: GraphRequest): boolean {
    const [first, second] = request.parts
    return (first === "dialog" && second === "oauth") || (first === "oauth" && second === "access_token")
  }

  handle(request: GraphRequest, reply: GraphReply): void {
    if (request.version !== this.options.version) {
      return reply.error(400, { message: `Unknown path components: ${request.path}`, code: 2500 })
    }
    const [first, second] = request.parts
    if (first === "dialog") return this.dialog(request, reply)
    if (first === "oauth") return request.params["grant_type"] === "fb_exchange_token" ? this.exchangeLong(request, reply) : this.exchangeCode(request, reply)
    const user = this.userToken(request.token)
    if (user === undefined || !user.valid) {
      return user === undefined
        ? reply.invalidToken()
        : reply.error(400, { message: "Error validating access token: The user has not authorized application.", code: 190, error_subcode: 458 })
    }
    if (!user.scopes.has("pages_show_list")) return reply.permission("pages_show_list")
    if (second === "accounts") return this.accounts(request, user, reply)
    const page = this.pages.find((candidate) => candidate.id === first)!
    this.tokenCalls.push("page_token")
    return reply.json(200, this.entry(page, user, request.params["fields"] ?? "id"))
  }

  /** Follows a dialog URL as the user would, approving it; answers where Facebook redirects. */
  async consent(dialogUrl: string): Promise<URL> {
    const response = await fetch(dialogUrl, { redirect: "manual" })
    const location = response.headers.get("location")
    if (response.status !== 302 || location === null) throw new Error(`the dialog answered ${response.status}: ${await response.text()}`)
    return new URL(location)
  }

  private dialog(request: GraphRequest, reply: GraphReply) {
    const query = request.url.searchParams
    this.dialogs.push(query)
    if (query.get("client_id") !== this.options.clientId) return reply.error(400, { message: "Invalid App ID", code: 101 })
    const redirectUri = query.get("redirect_uri")
    if (redirectUri === null) return reply.error(400, { message: "redirect_uri is required", code: 100 })
    if (query.get("response_type") !== "code") return reply.error(400, { message: "response_type must be code", code: 100 })
    // A Facebook Login for Business configuration names its permissions: the fake grants them all.
    const scopes = query.has("config_id") ? new Set(this.options.permissions) : new Set((query.get("scope") ?? "").split(",").filter((scope) => scope !== ""))
    for (const scope of scopes) if (!this.options.permissions.includes(scope)) return reply.error(400, { message: `Invalid Scopes: ${scope}`, code: 100 })
    const code = `AQ${randomBytes(24).toString("base64url")}`
    this.codes.set(code, { redirectUri, scopes })
    const target = new URL(redirectUri)
    target.searchParams.set("code", code)
    target.searchParams.set("state", query.get("state") ?? "")
    // Facebook appends #_=_ to its redirect.
    return reply.redirect(`${target.toString()}#_=_`)
  }

  private clientValid(request: GraphRequest) {
    return request.params["client_id"] === this.options.clientId && request.params["client_secret"] === this.options.clientSecret
  }

  private mintUser(kind: UserTokenRecord["kind"], scopes: Set<string>) {
    const token = `EAA${kind === "long" ? "L" : "S"}${randomBytes(24).toString("base64url")}`
    this.userTokens.set(token, { kind, scopes, valid: true })
    return token
  }

  private exchangeCode(request: GraphRequest, reply: GraphReply) {
    this.tokenCalls.push("code")
    if (!this.clientValid(request)) return reply.error(400, { message: "Error validating client secret.", code: 101 })
    const code = this.codes.get(request.params["code"] ?? "")
    this.codes.delete(request.params["code"] ?? "")
    if (code === undefined) return reply.error(400, { message: "This authorization code has been used.", code: 100, error_subcode: 36009 })
    if (code.redirectUri !== request.params["redirect_uri"]) {
      return reply.error(400, { message: "Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request", code: 100, error_subcode: 36008 })
    }
    return reply.json(200, { access_token: this.mintUser("short", code.scopes), token_type: "bearer", expires_in: 5400 })
  }

  private exchangeLong(request: GraphRequest, reply: GraphReply) {
    this.tokenCalls.push("fb_exchange_token")
    if (!this.clientValid(request)) return reply.error(400, { message: "Error validating client secret.", code: 101 })
    const short = this.userToken(request.params["fb_exchange_token"])
    if (short === undefined || !short.valid) return reply.invalidToken()
    return reply.json(200, { access_token: this.mintUser("long", short.scopes), token_type: "bearer", expires_in: longLivedSeconds })
  }

  private mintPage(pageId: string, user: UserTokenRecord) {
    const token = `EAAP${randomBytes(24).toString("base64url")}`
    this.pageTokens.set(token, { pageId, user, valid: true })
    return token
  }

  private entry(page: FakePage, user: UserTokenRecord, fields: string) {
    const wanted = new Set(fields.replace(/\{[^}]*\}/g, "").split(","))
    const withheld = (this.options.withheld ?? []).includes(page.id)
    return {
      id: page.id,
      ...(wanted.has("name") ? { name: page.name } : {}),
      ...(wanted.has("access_token") && !withheld ? { access_token: this.mintPage(page.id, user) } : {}),
      ...(wanted.has("tasks") ? { tasks: page.tasks } : {}),
      ...(wanted.has("instagram_business_account") && page.instagram !== undefined
        ? { instagram_business_account: page.listsUsername === false ? { id: page.instagram.id } : page.instagram }
        : {})
    }
  }

  private accounts(request: GraphRequest, user: UserTokenRecord, reply: GraphReply) {
    const limit = Math.max(1, Number(request.params["limit"] ?? "25"))
    const start = request.params["after"] === undefined ? 0 : Number(Buffer.from(request.params["after"], "base64url").toString("utf8"))
    const slice = this.pages.slice(start, start + limit)
    const cursor = (index: number) => Buffer.from(String(index)).toString("base64url")
    const more = start + limit < this.pages.length
    return reply.json(200, {
      data: slice.map((page) => this.entry(page, user, request.params["fields"] ?? "id,name,access_token")),
      paging: {
        cursors: { before: cursor(start), after: cursor(start + slice.length) },
        ...(more ? { next: `${request.url.origin}${request.path}?after=${cursor(start + slice.length)}&limit=${limit}` } : {})
      }
    })
  }
}
