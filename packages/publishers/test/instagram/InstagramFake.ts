/**
 * A fake of Instagram's Graph API on loopback at its documented paths, as either login serves it:
 * Instagram Login (graph.instagram.com: the consent page and code exchange of api.instagram.com,
 * /access_token with ig_exchange_token, /refresh_access_token with ig_refresh_token) or, with
 * `login: "facebook"`, graph.facebook.com: Facebook Login (FacebookLoginFake: the dialog, the
 * token endpoint, /me/accounts listing a Page linked to the Instagram account with its
 * instagram_business_account) and the Instagram calls made with that Page's token. The API under
 * the pinned version: /me, /{ig-user-id} (with Business
 * Discovery), /{ig-user-id}/media (create, list), /{ig-user-id}/stories,
 * /{ig-user-id}/media_publish, /{ig-user-id}/content_publishing_limit, /{container-id}
 * (status_code), /{ig-media-id}, /{ig-media-id}/insights and DELETE /{ig-media-id} (Facebook
 * Login only), answering in Meta's error envelope. Containers go IN_PROGRESS → FINISHED (or ERROR
 * with Meta's subcode in `status`) → PUBLISHED; media is downloaded from the URL the container
 * names (images must be JPEG), as Instagram does; the publishing limit is enforced at publish.
 */
import { randomBytes } from "node:crypto"
import type { FakeControls, InjectedReply } from "../kit/publisherContract.js"
import { FacebookLoginFake, type FakePage } from "../meta/FacebookLoginFake.js"
import { GraphFakeServer, type GraphReply, type GraphRequest } from "../meta/GraphFakeServer.js"

export interface InstagramFakeOptions {
  readonly clientId: string
  readonly clientSecret: string
  /** Which host the fake is: Instagram Login's (default) or Facebook Login's Instagram calls. */
  readonly login?: "instagram" | "facebook"
  /** The Graph version served; any other is refused as a retired version is. */
  readonly version?: string
  readonly user?: { readonly id: string; readonly username: string }
  /** Status reads a container stays IN_PROGRESS before it is FINISHED (0: FINISHED at the first read). */
  readonly processingReads?: number
  /** content_publishing_limit's quota_total. */
  readonly quota?: number
  /** Professional accounts Business Discovery finds, by username (branded content sponsors). */
  readonly brands?: Readonly<Record<string, string>>
  /**
   * Facebook Login only: the Pages the user manages besides the one linked to the Instagram
   * account (default: none), and whether the listing names the linked account's username.
   */
  readonly otherPages?: ReadonlyArray<FakePage>
  readonly listsUsername?: boolean
}

/** Instagram's permissions through Facebook Login (with the Pages permissions the login needs). */
export const facebookLoginPermissions = [
  "instagram_basic",
  "instagram_content_publish",
  "instagram_manage_insights",
  "instagram_manage_contents",
  "instagram_manage_comments",
  "pages_show_list",
  "pages_read_engagement",
  "business_management"
]

export type ContainerStatus = "IN_PROGRESS" | "FINISHED" | "PUBLISHED" | "ERROR" | "EXPIRED"

export interface FakeContainer {
  readonly id: string
  readonly userId: string
  readonly fields: Readonly<Record<string, string>>
  status: ContainerStatus
  /** Meta's subcode for ERROR. */
  errorStatus: string | null
  reads: number
}

export interface FakeInstagramPost {
  readonly id: string
  readonly userId: string
  readonly container: FakeContainer
  readonly children: ReadonlyArray<FakeContainer>
  readonly product: "FEED" | "REELS" | "STORY"
  readonly shortcode: string
  publishedAt: number
  deleted: boolean
}

/** A token as the API sees it: whose, with which permissions. */
export interface InstagramTokenRecord {
  readonly userId: string
  readonly kind: "short" | "long"
  readonly scopes: Set<string>
  /** Refused on API calls (190/463); still refreshable. */
  expired: boolean
  /** Past its 60 days: refused everywhere, refresh included. */
  lapsed: boolean
}

/** Instagram Login's permissions. */
export const instagramLoginPermissions = [
  "instagram_business_basic",
  "instagram_business_content_publish",
  "instagram_business_manage_insights",
  "instagram_business_manage_comments"
]

const digits = (count: number) => {
  let out = String(1 + Math.floor(Math.random() * 9))
  while (out.length < count) out += String(Math.floor(Math.random() * 10))
  return out
}

const day = 24 * 60 * 60 * 1000
const isJpeg = (bytes: ArrayBuffer) => bytes.byteLength >= 2 && new Uint8Array(bytes)[0] === 0xff && new Uint8Array(bytes)[1] === 0xd8
const download = (url: string) => fetch(url).then((answer) => answer.ok ? answer.arrayBuffer() : null, () => null)

/** Insights each product reports (ig-media insights reference). */
const productMetrics: Record<FakeInstagramPost["product"], ReadonlyArray<string>> = {
  FEED: ["reach", "views", "likes", "comments", "shares", "saved", "total_interactions"],
  REELS: ["reach", "views", "likes", "comments", "shares", "saved", "total_interactions"],
  STORY: ["reach", "views", "shares", "replies", "total_interactions"]
}

export class InstagramFake {
  readonly server: GraphFakeServer
  readonly containers = new Map<string, FakeContainer>()
  readonly posts: Array<FakeInstagramPost> = []
  /** Token endpoint calls, by grant. */
  readonly tokenCalls: Array<string> = []
  /** Insights Instagram would report, by media id; `defaultInsights` for a post not listed (else zeros). */
  readonly insights = new Map<string, Record<string, number>>()
  defaultInsights: Record<string, number> = {}
  readonly user: { readonly id: string; readonly username: string }
  readonly version: string
  /** Tokens of Instagram Login (the Facebook Login fake resolves its own through `resolveToken`). */
  private readonly tokens = new Map<string, InstagramTokenRecord>()
  private readonly codes = new Map<string, { redirectUri: string; scopes: Set<string> }>()
  private hangPublish = false
  private quotaTotal: number | undefined
  /** Facebook Login, when the fake is graph.facebook.com: it issues the user and Page tokens. */
  readonly facebook: FacebookLoginFake | undefined

  constructor(readonly options: InstagramFakeOptions) {
    this.user = options.user ?? { id: "17841400000000042", username: "grace.hopper" }
    this.version = options.version ?? "v26.0"
    const facebook = options.login === "facebook"
      ? new FacebookLoginFake({
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        version: this.version,
        permissions: facebookLoginPermissions,
        pages: [
          {
            id: "104000000000077",
            name: "Grace's Page",
            tasks: ["ADVERTISE", "ANALYZE", "CREATE_CONTENT", "MESSAGING", "MODERATE", "MANAGE"],
            instagram: this.user,
            ...(options.listsUsername === false ? { listsUsername: false } : {})
          },
          ...(options.otherPages ?? [])
        ]
      })
      : undefined
    this.facebook = facebook
    this.server = facebook === undefined
      ? new GraphFakeServer(
        (request, reply) => this.handle(request, reply),
        (request) => request.version === null && ["/oauth/authorize", "/oauth/access_token", "/access_token", "/refresh_access_token"].includes(request.path)
      )
      : new GraphFakeServer(
        (request, reply) => facebook.handles(request) ? facebook.handle(request, reply) : this.handle(request, reply),
        (request) => facebook.exempt(request)
      )
  }

  /** The token as the API reads it: Instagram Login's own, or a Page token Facebook Login issued (posting as the Page's Instagram account). */
  private resolveToken(token: string): InstagramTokenRecord | undefined {
    if (this.facebook === undefined) return this.tokens.get(token)
    const page = this.facebook.pageToken(token)
    const linked = page === undefined ? undefined : this.facebook.pages.find((candidate) => candidate.id === page.pageId)?.instagram
    if (page === undefined || linked === undefined) return undefined
    return { userId: linked.id, kind: "long", scopes: page.user.scopes, expired: !page.valid || !page.user.valid, lapsed: false }
  }

  get url(): string {
    return this.server.url
  }

  get calls(): ReadonlyArray<string> {
    return this.server.calls
  }

  async start(): Promise<this> {
    await this.server.start()
    return this
  }

  stop(): Promise<void> {
    return this.server.stop()
  }

  // Hooks ------------------------------------------------------------------------------------

  failNext(reply: InjectedReply, options?: { readonly only?: string }): void {
    this.server.failNext(reply, options)
  }

  /**
   * The next media_publish is carried out (the post exists) and never answered: the call whose
   * lost answer leaves the outcome unknown in the container flow.
   */
  hangNext(): void {
    this.hangPublish = true
  }

  /**
   * Every Instagram Login token is refused on API calls (190/463); refresh_access_token still
   * takes them. Through Facebook Login: the Page tokens die, the user token still gets new ones.
   */
  expireToken(): void {
    this.facebook?.invalidatePageTokens()
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
    this.facebook?.revokeGrant()
    this.tokens.clear()
  }

  revokeScope(scope: string): void {
    this.facebook?.revokePermission(scope)
    for (const token of this.tokens.values()) token.scopes.delete(scope)
  }

  /** Moves a post's publication back in time (a story past its 24 hours). */
  age(id: string, byMs: number): void {
    const post = this.posts.find((candidate) => candidate.id === id)
    if (post !== undefined) post.publishedAt -= byMs
  }

  livePosts(): ReadonlyArray<FakeInstagramPost> {
    return this.posts.filter((post) => !post.deleted)
  }

  controls(): FakeControls {
    return {
      failNext: (reply) => this.failNext(reply),
      hangNext: () => this.hangNext(),
      expireToken: () => this.expireToken(),
      revokeGrant: () => this.revokeGrant(),
      revokeScope: (scope) => this.revokeScope(scope),
      publishScope: this.options.login === "facebook" ? "instagram_content_publish" : "instagram_business_content_publish",
      posts: () =>
        this.livePosts().map((post) => ({
          id: post.id,
          text: post.container.fields["caption"] ?? null,
          media: post.children.length > 0 ? post.children.length : 1
        })),
      // Through Facebook Login a refresh is the Page's token asked for again.
      refreshes: () => this.facebook?.tokenCalls.filter((call) => call === "page_token").length ?? this.tokenCalls.filter((grant) => grant === "ig_refresh_token").length
    }
  }

  /** Follows a consent URL as the user would, approving it; answers where Instagram (or Facebook) redirects. */
  async consent(authorizeUrl: string): Promise<URL> {
    if (this.facebook !== undefined) return this.facebook.consent(authorizeUrl)
    const response = await fetch(authorizeUrl, { redirect: "manual" })
    const location = response.headers.get("location")
    if (response.status !== 302 || location === null) throw new Error(`consent answered ${response.status}: ${await response.text()}`)
    return new URL(location)
  }

  // -------------------------------------------------------------------------------------------

  private scopesFor(name: "publish" | "insights" | "delete") {
    const facebook = this.options.login === "facebook"
    return name === "publish"
      ? (facebook ? "instagram_content_publish" : "instagram_business_content_publish")
      : name === "insights"
      ? (facebook ? "instagram_manage_insights" : "instagram_business_manage_insights")
      : "instagram_manage_contents"
  }

  private handle(request: GraphRequest, reply: GraphReply) {
    if (request.version === null) {
      if (request.path === "/oauth/authorize" && request.method === "GET") return this.authorize(request.params, reply)
      if (request.path === "/oauth/access_token" && request.method === "POST") return this.exchangeCode(request.params, reply)
      if (request.path === "/access_token" && request.method === "GET") return this.exchangeLong(request.params, reply)
      if (request.path === "/refresh_access_token" && request.method === "GET") return this.refresh(request.params, reply)
    }
    if (request.version !== this.version) {
      return reply.error(400, { message: `Unknown path components: ${request.path}`, code: 2500, type: "IGApiException" })
    }
    const token = request.token === undefined ? undefined : this.resolveToken(request.token)
    if (token === undefined) return reply.invalidToken()
    if (token.expired) return reply.error(400, { message: "Error validating access token: Session has expired.", code: 190, error_subcode: 463 })
    return this.api(request, token, reply)
  }

  private api(request: GraphRequest, token: InstagramTokenRecord, reply: GraphReply) {
    const { method, params } = request
    const [first, second] = request.parts
    const fields = params["fields"] ?? ""
    if (method === "GET" && first === "me" && second === undefined) {
      return reply.json(200, { user_id: this.user.id, username: this.user.username, id: `9${this.user.id.slice(1)}` })
    }
    if (first === this.user.id && token.userId === this.user.id) {
      if (method === "GET" && second === undefined) {
        const discovery = /^business_discovery\.username\(([^)]+)\)\{id\}$/.exec(fields)
        if (discovery !== null) {
          const found = this.options.brands?.[discovery[1]!]
          if (found === undefined) {
            return reply.error(400, {
              message: `Invalid user id`,
              code: 110,
              error_subcode: 2207013,
              error_user_msg: `The user with username: ${discovery[1]} cannot be found.`
            })
          }
          return reply.json(200, { business_discovery: { id: found }, id: this.user.id })
        }
        return reply.json(200, { id: this.user.id, username: this.user.username })
      }
      if (method === "POST" && second === "media") return this.createContainer(params, token, reply)
      if (method === "POST" && second === "media_publish") return this.publish(params, token, reply)
      if (method === "GET" && second === "content_publishing_limit") {
        if (!token.scopes.has(this.scopesFor("publish"))) return reply.permission(this.scopesFor("publish"))
        return reply.json(200, { data: [{ quota_usage: this.usage(), config: { quota_total: this.quota(), quota_duration: 86400 } }] })
      }
      if (method === "GET" && (second === "media" || second === "stories")) {
        const stories = second === "stories"
        const data = this.livePosts()
          .filter((post) => stories ? post.product === "STORY" && post.publishedAt >= Date.now() - day : post.product !== "STORY")
          .slice().reverse().slice(0, Number(params["limit"] ?? 25)).map((post) => this.view(post))
        return reply.json(200, { data, paging: { cursors: { before: "", after: "" } } })
      }
    }
    const container = first === undefined ? undefined : this.containers.get(first)
    if (method === "GET" && container !== undefined && second === undefined && container.userId === token.userId) {
      if (container.status === "IN_PROGRESS" && container.reads++ >= (this.options.processingReads ?? 0)) container.status = "FINISHED"
      return reply.json(200, { id: container.id, status_code: container.status, ...(container.errorStatus === null ? {} : { status: container.errorStatus }) })
    }
    const post = this.livePosts().find((candidate) => candidate.id === first && candidate.userId === token.userId)
    if (post === undefined) return reply.unsupported(method, first ?? "")
    if (method === "GET" && second === undefined) return reply.json(200, this.view(post))
    if (method === "GET" && second === "insights") return this.insightsOf(post, params, token, reply)
    if (method === "DELETE" && second === undefined) {
      // Instagram Login has no delete: graph.instagram.com answers as for an unsupported operation.
      if (this.options.login !== "facebook") return reply.unsupported(method, post.id)
      if (!token.scopes.has(this.scopesFor("delete"))) return reply.permission(this.scopesFor("delete"))
      post.deleted = true
      return reply.json(200, { success: true })
    }
    return reply.error(400, { message: "Unsupported request", code: 100 })
  }

  private insightsOf(post: FakeInstagramPost, params: Readonly<Record<string, string>>, token: InstagramTokenRecord, reply: GraphReply) {
    if (!token.scopes.has(this.scopesFor("insights"))) return reply.permission(this.scopesFor("insights"))
    if (post.product === "STORY" && post.publishedAt < Date.now() - day) {
      return reply.error(400, { message: "(#10) Media Insights are not available for stories older than 24 hours", code: 10 })
    }
    const names = (params["metric"] ?? "").split(",").filter((name) => name !== "")
    const unsupported = names.find((name) => !productMetrics[post.product].includes(name))
    if (unsupported !== undefined) {
      return reply.error(400, { message: `(#100) The Media Insights API does not support the ${unsupported} metric for this media product type.`, code: 100 })
    }
    const counts = this.insights.get(post.id) ?? this.defaultInsights
    return reply.json(200, {
      data: names.map((name) => ({ name, period: "lifetime", values: [{ value: counts[name] ?? 0 }], id: `${post.id}/insights/${name}/lifetime` }))
    })
  }

  private quota() {
    return this.quotaTotal ?? this.options.quota ?? 100
  }

  /** Changes content_publishing_limit's quota_total from now on. */
  setQuota(total: number): void {
    this.quotaTotal = total
  }

  private usage() {
    const since = Date.now() - day
    return this.posts.filter((post) => post.publishedAt >= since).length
  }

  private view(post: FakeInstagramPost) {
    const type = post.children.length > 0 ? "CAROUSEL_ALBUM" : post.container.fields["video_url"] !== undefined ? "VIDEO" : "IMAGE"
    return {
      id: post.id,
      media_type: type,
      media_product_type: post.product,
      ...(post.container.fields["caption"] === undefined ? {} : { caption: post.container.fields["caption"] }),
      permalink: post.product === "STORY"
        ? `https://www.instagram.com/stories/${this.user.username}/${post.id}/`
        : `https://www.instagram.com/${post.product === "REELS" ? "reel" : "p"}/${post.shortcode}/`,
      shortcode: post.shortcode,
      timestamp: new Date(post.publishedAt).toISOString().replace(/\.\d{3}Z$/, "+0000"),
      username: this.user.username
    }
  }

  private async createContainer(params: Readonly<Record<string, string>>, token: InstagramTokenRecord, reply: GraphReply) {
    if (!token.scopes.has(this.scopesFor("publish"))) return reply.permission(this.scopesFor("publish"))
    const fields = Object.fromEntries(Object.entries(params).filter(([name]) => name !== "access_token"))
    const invalid = (message: string, subcode?: number) =>
      reply.error(400, { message: `(#100) ${message}`, code: 100, type: "IGApiException", error_user_msg: message, ...(subcode === undefined ? {} : { error_subcode: subcode }) })
    const type = fields["media_type"]
    const child = fields["is_carousel_item"] === "true"
    const story = type === "STORIES"
    const reel = type === "REELS"
    const carousel = type === "CAROUSEL"
    if (type !== undefined && !["REELS", "STORIES", "CAROUSEL", "VIDEO"].includes(type)) return invalid("Param media_type must be one of {REELS, STORIES, CAROUSEL, VIDEO}")
    if (type === "VIDEO" && !child) return invalid("The VIDEO media type is only for carousel items; publish a video as REELS")
    const caption = fields["caption"]
    if (caption !== undefined && (story || child)) return invalid("Param caption is not supported on stories or carousel items")
    if (caption !== undefined && [...caption].length > 2200) return invalid("The caption is longer than 2200 characters", 2207010)
    const image = !reel && !carousel && fields["video_url"] === undefined
    if (fields["alt_text"] !== undefined && (!image || story)) return invalid("Param alt_text is supported on images only")
    if (fields["alt_text"] !== undefined && [...fields["alt_text"]].length > 1000) return invalid("Param alt_text must be at most 1000 characters")
    if (fields["collaborators"] !== undefined) {
      if (story || child) return invalid("Param collaborators is not allowed on stories or carousel items")
      const names = JSON.parse(fields["collaborators"]) as unknown
      if (!Array.isArray(names) || names.length > 3 || !names.every((name) => typeof name === "string")) return invalid("Param collaborators takes up to 3 usernames")
    }
    if (fields["is_ai_generated"] !== undefined && (child || fields["is_ai_generated"] !== "true")) return invalid("Param is_ai_generated is set on the post (a carousel's parent), as true")
    for (const name of ["share_to_feed", "cover_url", "thumb_offset"]) if (fields[name] !== undefined && !reel) return invalid(`Param ${name} is supported on reels only`)
    if (fields["share_to_feed"] !== undefined && !["true", "false"].includes(fields["share_to_feed"])) return invalid("Param share_to_feed must be a boolean")
    if (fields["thumb_offset"] !== undefined && !/^\d+$/.test(fields["thumb_offset"])) return invalid("Param thumb_offset must be a number of milliseconds", 2207057)
    if (fields["is_paid_partnership"] !== undefined || fields["branded_content_sponsor_ids"] !== undefined) {
      if (this.options.login !== "facebook") return invalid("Branded content is available only through the Instagram API with Facebook Login")
      if (child) return invalid("Branded content is set on the post, not on carousel items")
      const sponsors = JSON.parse(fields["branded_content_sponsor_ids"] ?? "[]") as unknown
      const known = new Set(Object.values(this.options.brands ?? {}))
      if (!Array.isArray(sponsors) || sponsors.length > 2 || !sponsors.every((id) => known.has(String(id)))) {
        return reply.error(400, { message: "INSTAGRAM_PLATFORM_API__INVALID_PARAM", code: 100, error_user_msg: "Invalid branded content sponsors: at most 2 professional accounts" })
      }
    }
    const container: FakeContainer = { id: digits(17), userId: token.userId, fields, status: "IN_PROGRESS", errorStatus: null, reads: 0 }
    if (carousel) {
      const children = (fields["children"] ?? "").split(",").filter((id) => id !== "")
      if (children.length < 2 || children.length > 10) return invalid("A carousel holds 2 to 10 items", 2207028)
      for (const id of children) {
        const item = this.containers.get(id)
        if (item === undefined || item.fields["is_carousel_item"] !== "true" || item.userId !== token.userId) return invalid(`children: ${id} is not a carousel item of this user`)
        if (item.status !== "FINISHED") return reply.error(400, { message: "Media ID is not available", code: 9007, error_subcode: 2207027, error_user_msg: "The media is not ready for publishing, please wait for a moment" })
      }
    } else {
      const video = fields["video_url"]
      const picture = fields["image_url"]
      if ((video === undefined) === (picture === undefined)) return invalid("A container takes one of image_url and video_url")
      if ((reel || type === "VIDEO") && video === undefined) return invalid("Param video_url is required for REELS and VIDEO")
      if (picture !== undefined) {
        const bytes = await download(picture)
        if (bytes === null || bytes.byteLength === 0) {
          return reply.error(400, { message: "Media download has failed. The media URI doesn't meet our requirements.", code: 9004, error_subcode: 2207052, error_user_msg: "The media could not be fetched from this URI" })
        }
        if (!isJpeg(bytes)) return reply.error(400, { message: "The image format is not supported.", code: 36001, error_subcode: 2207005, error_user_msg: "Only JPEG images are supported" })
      } else {
        const bytes = await download(video!)
        if (bytes === null || bytes.byteLength === 0) {
          container.status = "ERROR"
          container.errorStatus = "2207026"
        }
      }
      if (fields["cover_url"] !== undefined) {
        const cover = await download(fields["cover_url"])
        if (cover === null || !isJpeg(cover)) return reply.error(400, { message: "The cover image could not be fetched or is not a JPEG.", code: 9004, error_subcode: 2207052 })
      }
    }
    this.containers.set(container.id, container)
    return reply.json(200, { id: container.id })
  }

  private publish(params: Readonly<Record<string, string>>, token: InstagramTokenRecord, reply: GraphReply) {
    if (!token.scopes.has(this.scopesFor("publish"))) return reply.permission(this.scopesFor("publish"))
    const container = this.containers.get(params["creation_id"] ?? "")
    if (container === undefined || container.userId !== token.userId || container.fields["is_carousel_item"] === "true") {
      return reply.error(400, { message: "(#100) Param creation_id is not a container of this user", code: 100 })
    }
    if (container.status !== "FINISHED") {
      return reply.error(400, { message: "Media ID is not available", code: 9007, error_subcode: 2207027, error_user_msg: `The media is not ready for publishing (${container.status})` })
    }
    if (this.usage() >= this.quota()) {
      return reply.error(400, { message: "Application request limit reached", code: 9, error_subcode: 2207042, error_user_msg: "The maximum number of posts that were published has been reached." })
    }
    container.status = "PUBLISHED"
    const children = (container.fields["children"] ?? "").split(",").filter((id) => id !== "").map((id) => this.containers.get(id)!)
    const type = container.fields["media_type"]
    const post: FakeInstagramPost = {
      id: digits(17),
      userId: token.userId,
      container,
      children,
      product: type === "STORIES" ? "STORY" : type === "REELS" ? "REELS" : "FEED",
      shortcode: randomBytes(8).toString("base64url").slice(0, 11),
      publishedAt: Date.now(),
      deleted: false
    }
    this.posts.push(post)
    if (this.hangPublish) {
      // Left unanswered; stop() closes the connection.
      this.hangPublish = false
      return
    }
    return reply.json(200, { id: post.id })
  }

  // Instagram Login's OAuth -------------------------------------------------------------------

  private mint(userId: string, kind: InstagramTokenRecord["kind"], scopes: Set<string>) {
    const token = `IG${kind === "long" ? "L" : "S"}${randomBytes(24).toString("base64url")}`
    this.tokens.set(token, { userId, kind, scopes, expired: false, lapsed: false })
    return token
  }

  private authorize(query: Readonly<Record<string, string>>, reply: GraphReply) {
    if (query["client_id"] !== this.options.clientId) return reply.error(400, { message: "Invalid platform app", code: 101 })
    const redirectUri = query["redirect_uri"]
    if (redirectUri === undefined) return reply.error(400, { message: "redirect_uri is required", code: 100 })
    if (query["response_type"] !== "code") return reply.error(400, { message: "response_type must be code", code: 100 })
    const scopes = new Set((query["scope"] ?? "").split(","))
    if (!scopes.has("instagram_business_basic")) return reply.error(400, { message: "instagram_business_basic is required", code: 100 })
    for (const scope of scopes) if (!instagramLoginPermissions.includes(scope)) return reply.error(400, { message: `Invalid scope: ${scope}`, code: 100 })
    const code = `AQ${randomBytes(24).toString("base64url")}`
    this.codes.set(code, { redirectUri, scopes })
    const target = new URL(redirectUri)
    target.searchParams.set("code", code)
    target.searchParams.set("state", query["state"] ?? "")
    // Instagram appends #_ to its redirect.
    return reply.redirect(`${target.toString()}#_`)
  }

  private exchangeCode(form: Readonly<Record<string, string>>, reply: GraphReply) {
    this.tokenCalls.push(form["grant_type"] ?? "")
    if (form["client_id"] !== this.options.clientId || form["client_secret"] !== this.options.clientSecret) {
      return reply.error(400, { message: "Error validating client secret.", code: 101, type: "OAuthException" })
    }
    if (form["grant_type"] !== "authorization_code") return reply.error(400, { message: "Unsupported grant_type", code: 100 })
    const code = this.codes.get(form["code"] ?? "")
    this.codes.delete(form["code"] ?? "")
    if (code === undefined || code.redirectUri !== form["redirect_uri"]) {
      return reply.error(400, { message: "Invalid verification code format.", code: 100, error_subcode: 36008 })
    }
    const granted = { access_token: this.mint(this.user.id, "short", code.scopes), user_id: Number(this.user.id), permissions: [...code.scopes].join(",") }
    return reply.json(200, { data: [granted] })
  }

  private exchangeLong(query: Readonly<Record<string, string>>, reply: GraphReply) {
    this.tokenCalls.push(query["grant_type"] ?? "")
    if (query["grant_type"] !== "ig_exchange_token") return reply.error(400, { message: "Unsupported grant_type", code: 100 })
    if (query["client_secret"] !== this.options.clientSecret) return reply.error(400, { message: "Error validating client secret.", code: 101 })
    const short = this.tokens.get(query["access_token"] ?? "")
    if (short === undefined || short.kind !== "short") return reply.invalidToken()
    this.tokens.delete(query["access_token"] ?? "")
    return reply.json(200, { access_token: this.mint(short.userId, "long", short.scopes), token_type: "bearer", expires_in: 5183944 })
  }

  private refresh(query: Readonly<Record<string, string>>, reply: GraphReply) {
    this.tokenCalls.push(query["grant_type"] ?? "")
    if (query["grant_type"] !== "ig_refresh_token") return reply.error(400, { message: "Unsupported grant_type", code: 100 })
    const old = this.tokens.get(query["access_token"] ?? "")
    if (old === undefined || old.kind !== "long") {
      return reply.error(400, { message: "Error validating access token: The user has not authorized application.", code: 190, error_subcode: 458 })
    }
    if (old.lapsed) return reply.error(400, { message: "Error validating access token: Session has expired.", code: 190, error_subcode: 463 })
    this.tokens.delete(query["access_token"] ?? "")
    return reply.json(200, { access_token: this.mint(old.userId, "long", old.scopes), token_type: "bearer", expires_in: 5184000 })
  }
}
