import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import twitterText from "twitter-text"
import type { FakeControls, FakePost, InjectedReply } from "../kit/publisherContract.js"
import { requestSchema, violations } from "./XOpenApi.js"

/**
 * A stand-in for X on loopback: the OAuth 2 consent and token endpoints and the API v2 paths
 * Herald's X publisher calls, with X's documented request and reply shapes (docs.x.com and its
 * openapi.json, kept as x-openapi.json), headers and error bodies. It refuses what X refuses: a
 * missing, expired or revoked token (401), a missing scope (403), a body its OpenAPI schema
 * refuses (400 invalid-request), text over 280 by X's weighted count (twitter-text, X's own
 * library), a duplicate of a live post (403), media not yet processed (400).
 */

export interface XFakeOptions {
  /** null: a public client (client_id in the token request's body). */
  readonly clientSecret?: string | null
  /** STATUS polls before a video or GIF is processed. */
  readonly processingPolls?: number
  readonly checkAfterSecs?: number
}

export interface StoredPost {
  readonly id: string
  readonly authorId: string
  readonly text: string
  readonly createdAt: string
  readonly mediaIds: ReadonlyArray<string>
  readonly inReplyTo: string | null
  readonly poll: { readonly options: ReadonlyArray<string>; readonly duration_minutes: number } | null
  readonly replySettings: string | null
}

interface StoredMedia {
  readonly id: string
  readonly category: string
  readonly type: string | null
  readonly totalBytes: number
  received: number
  segments: number
  /** null: no processing (images); else the polls left before `succeeded`. */
  pollsLeft: number | null
  finalized: boolean
  altText: string | null
}

interface Token {
  readonly scopes: Set<string>
  expired: boolean
}

const user = { id: "1460000000000000001", username: "herald_x", name: "Herald on X" }

const problem = (status: number, title: string, detail: string, type = "about:blank", extra: object = {}) => ({
  status,
  body: { title, detail, type, status, ...extra }
})

const unauthorized = problem(401, "Unauthorized", "Unauthorized")
const forbidden = problem(403, "Forbidden", "Forbidden")
const invalid = (message: string, parameters: object = {}) =>
  problem(400, "Invalid Request", "One or more parameters to your request was invalid.", "https://api.x.com/2/problems/invalid-request", {
    errors: [{ parameters, message }]
  })

/** What each path demands of the token (the OpenAPI's security scopes). */
const scopesFor = (method: string, path: string): ReadonlyArray<string> =>
  path.startsWith("/2/media")
    ? ["media.write"]
    : method === "POST" || method === "DELETE"
    ? ["tweet.read", "tweet.write", "users.read"]
    : ["tweet.read", "users.read"]

const digits = () => BigInt(`0x${randomBytes(8).toString("hex")}`).toString().padStart(19, "1").slice(0, 19)

const readBody = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks)))
    request.on("error", reject)
  })

const base64url = (bytes: Buffer) => bytes.toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")

export interface XFake extends FakeControls {
  readonly url: string
  readonly clientId: string
  readonly clientSecret: string | null
  readonly user: typeof user
  /** Every stored post, replies included, as X holds it. */
  readonly stored: () => ReadonlyArray<StoredPost>
  readonly media: (id: string) => StoredMedia | undefined
  /** The next call (any path except the token endpoint) is carried out, but its answer is lost: the connection drops. */
  readonly loseAnswerNext: () => void
  /** The next video or GIF fails processing. */
  readonly failNextProcessing: () => void
  /** Requests the fake received, in order: method and path. */
  readonly calls: () => ReadonlyArray<string>
  readonly close: () => Promise<void>
}

export const startXFake = async (options: XFakeOptions = {}): Promise<XFake> => {
  const clientId = "herald-fake-client"
  const clientSecret = options.clientSecret === undefined ? "herald-fake-secret" : options.clientSecret
  const codes = new Map<string, { redirectUri: string; challenge: string; scopes: Set<string>; expiresAt: number }>()
  const tokens = new Map<string, Token>()
  const refreshTokens = new Map<string, Set<string>>()
  const posts = new Map<string, StoredPost>()
  const media = new Map<string, StoredMedia>()
  const injected: Array<InjectedReply | "hang" | "lose"> = []
  const calls: Array<string> = []
  let refreshes = 0
  let failProcessing = false

  const issue = (scopes: Set<string>) => {
    const access = `xat-${randomBytes(18).toString("hex")}`
    tokens.set(access, { scopes, expired: false })
    const refresh = scopes.has("offline.access") ? `xrt-${randomBytes(18).toString("hex")}` : undefined
    if (refresh !== undefined) refreshTokens.set(refresh, scopes)
    return {
      token_type: "bearer",
      expires_in: 7200,
      access_token: access,
      scope: [...scopes].join(" "),
      ...(refresh === undefined ? {} : { refresh_token: refresh })
    }
  }

  type Reply = { status: number; body?: unknown; headers?: Record<string, string>; location?: string }

  const oauthError = (status: number, error: string, description: string): Reply => ({
    status,
    body: { error, error_description: description }
  })

  const authorize = (url: URL): Reply => {
    const q = url.searchParams
    const redirect = q.get("redirect_uri")
    if (q.get("client_id") !== clientId) return { status: 400, body: "Something went wrong: unknown client_id" }
    if (redirect === null || !URL.canParse(redirect)) return { status: 400, body: "Something went wrong: redirect_uri" }
    if (q.get("response_type") !== "code" || !q.get("state") || !q.get("code_challenge") || q.get("code_challenge_method") !== "S256") {
      return { status: 400, body: "Something went wrong: response_type=code, state, code_challenge and code_challenge_method=S256 are required" }
    }
    const code = randomBytes(24).toString("base64url")
    codes.set(code, {
      redirectUri: redirect,
      challenge: q.get("code_challenge")!,
      scopes: new Set((q.get("scope") ?? "").split(" ").filter((s) => s !== "")),
      // Authorization codes live 30 seconds.
      expiresAt: Date.now() + 30_000
    })
    const back = new URL(redirect)
    back.searchParams.set("state", q.get("state")!)
    back.searchParams.set("code", code)
    return { status: 302, location: back.toString() }
  }

  const token = (request: IncomingMessage, raw: Buffer): Reply => {
    if (!(request.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) {
      return oauthError(400, "invalid_request", "Content-Type must be application/x-www-form-urlencoded")
    }
    const form = new URLSearchParams(raw.toString("utf8"))
    if (clientSecret !== null) {
      const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`
      if (request.headers.authorization !== expected) return oauthError(401, "unauthorized_client", "Missing valid authorization header")
    } else if (form.get("client_id") !== clientId) {
      return oauthError(400, "invalid_request", "Missing required parameter [client_id].")
    }
    if (form.get("grant_type") === "authorization_code") {
      const code = codes.get(form.get("code") ?? "")
      codes.delete(form.get("code") ?? "")
      if (code === undefined || code.expiresAt < Date.now()) {
        return oauthError(400, "invalid_request", "Value passed for the authorization code was invalid.")
      }
      if (form.get("redirect_uri") !== code.redirectUri) return oauthError(400, "invalid_request", "Value passed for the redirect uri did not match the uri of the authorization code.")
      const verifier = form.get("code_verifier") ?? ""
      if (base64url(createHash("sha256").update(verifier).digest()) !== code.challenge) {
        return oauthError(400, "invalid_request", "Value passed for the code verifier did not match the code challenge.")
      }
      return { status: 200, body: issue(code.scopes) }
    }
    if (form.get("grant_type") === "refresh_token") {
      const scopes = refreshTokens.get(form.get("refresh_token") ?? "")
      if (scopes === undefined) return oauthError(400, "invalid_request", "Value passed for the token was invalid.")
      // Refresh tokens rotate: the one used is spent.
      refreshTokens.delete(form.get("refresh_token")!)
      refreshes++
      return { status: 200, body: issue(scopes) }
    }
    return oauthError(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
  }

  const json = (request: IncomingMessage, raw: Buffer, path: string, method: string): { value: Record<string, unknown> } | Reply => {
    if (!(request.headers["content-type"] ?? "").startsWith("application/json")) {
      return problem(415, "Unsupported Media Type", `Content-Type must be application/json (the fake reads no multipart)`)
    }
    let value: unknown
    try {
      value = JSON.parse(raw.toString("utf8"))
    } catch {
      return invalid("Request body is not valid JSON")
    }
    const wrong = violations(requestSchema(path, method), value)
    if (wrong.length > 0) return invalid(wrong.join("; "))
    return { value: value as Record<string, unknown> }
  }

  const api = (request: IncomingMessage, url: URL, raw: Buffer, scopes: Set<string>): Reply => {
    const method = request.method ?? "GET"
    const path = url.pathname
    const missing = scopesFor(method, path).filter((scope) => !scopes.has(scope))
    if (missing.length > 0) return forbidden

    if (method === "GET" && path === "/2/users/me") return { status: 200, body: { data: user } }

    if (method === "POST" && path === "/2/tweets") {
      const parsed = json(request, raw, "/2/tweets", "post")
      if (!("value" in parsed)) return parsed
      const body = parsed.value as {
        text?: string
        media?: { media_ids: Array<string> }
        reply?: { in_reply_to_tweet_id: string }
        poll?: { options: Array<string>; duration_minutes: number }
        reply_settings?: string
      }
      const text = body.text ?? ""
      const mediaIds = body.media?.media_ids ?? []
      if (text === "" && mediaIds.length === 0) return invalid("Post text or media is required", { text: [] })
      if (twitterText.parseTweet(text).weightedLength > 280) return problem(403, "Forbidden", "Your Tweet text is too long.")
      if (mediaIds.some((id) => { const item = media.get(id); return item === undefined || !item.finalized || (item.pollsLeft ?? 0) > 0 })) {
        return invalid("Your media IDs are invalid.", { "media.media_ids": mediaIds })
      }
      if (body.poll !== undefined && mediaIds.length > 0) return invalid("A post cannot have both a poll and media")
      const replyTo = body.reply?.in_reply_to_tweet_id ?? null
      if (replyTo !== null && !posts.has(replyTo)) return invalid("The post you are replying to does not exist or is not visible to you.")
      if (text !== "" && [...posts.values()].some((post) => post.text === text)) {
        return problem(403, "Forbidden", "You are not allowed to create a Tweet with duplicate content.")
      }
      const id = digits()
      posts.set(id, {
        id,
        authorId: user.id,
        text,
        createdAt: new Date().toISOString().replace(/\.\d+Z$/, ".000Z"),
        mediaIds,
        inReplyTo: replyTo,
        poll: body.poll ?? null,
        replySettings: body.reply_settings ?? null
      })
      return {
        status: 201,
        body: { data: { id, text, edit_history_post_ids: [id] } },
        headers: {
          "x-user-limit-24hour-limit": "100",
          "x-user-limit-24hour-remaining": "99",
          "x-user-limit-24hour-reset": String(Math.floor(Date.now() / 1000) + 86_400)
        }
      }
    }

    const tweet = /^\/2\/tweets\/([0-9]{1,19})$/.exec(path)
    if (tweet !== null && method === "DELETE") {
      const post = posts.get(tweet[1]!)
      if (post === undefined) return { status: 200, body: { data: { deleted: false } } }
      posts.delete(post.id)
      return { status: 200, body: { data: { deleted: true } } }
    }
    if (tweet !== null && method === "GET") {
      const post = posts.get(tweet[1]!)
      if (post === undefined) {
        return {
          status: 200,
          body: {
            errors: [{
              value: tweet[1],
              detail: `Could not find tweet with id: [${tweet[1]}].`,
              title: "Not Found Error",
              resource_type: "tweet",
              parameter: "id",
              resource_id: tweet[1],
              type: "https://api.x.com/2/problems/resource-not-found"
            }]
          }
        }
      }
      return { status: 200, body: { data: render(post, url.searchParams.get("post.fields") ?? "") } }
    }

    const timeline = /^\/2\/users\/([0-9]{1,19})\/tweets$/.exec(path)
    if (timeline !== null && method === "GET") {
      const since = url.searchParams.get("start_time")
      const exclude = (url.searchParams.get("exclude") ?? "").split(",")
      const max = Number(url.searchParams.get("max_results") ?? "10")
      if (!(max >= 5 && max <= 100)) return invalid("max_results must be between 5 and 100", { max_results: [String(max)] })
      const found = [...posts.values()]
        .filter((post) => post.authorId === timeline[1])
        .filter((post) => since === null || post.createdAt >= since)
        .filter((post) => !exclude.includes("replies") || post.inReplyTo === null)
        .reverse()
        .slice(0, max)
      const fields = url.searchParams.get("post.fields") ?? ""
      return {
        status: 200,
        body: found.length === 0
          ? { meta: { result_count: 0 } }
          : { data: found.map((post) => render(post, fields)), meta: { result_count: found.length, newest_id: found[0]!.id, oldest_id: found.at(-1)!.id } }
      }
    }

    if (method === "POST" && path === "/2/media/upload") {
      const parsed = json(request, raw, "/2/media/upload", "post")
      if (!("value" in parsed)) return parsed
      const bytes = Buffer.from(String(parsed.value.media), "base64")
      if (bytes.length === 0) return invalid("media must be base64-encoded bytes", { media: [] })
      const id = digits()
      media.set(id, { id, category: String(parsed.value.media_category), type: null, totalBytes: bytes.length, received: bytes.length, segments: 1, pollsLeft: null, finalized: true, altText: null })
      return { status: 200, body: { data: { id, media_key: `3_${id}`, size: bytes.length, expires_after_secs: 86_400, image: { image_type: "image/jpeg", w: 1, h: 1 } } } }
    }
    if (method === "POST" && path === "/2/media/upload/initialize") {
      const parsed = json(request, raw, "/2/media/upload/initialize", "post")
      if (!("value" in parsed)) return parsed
      const { media_category: category, media_type: type, total_bytes: total } = parsed.value as { media_category?: string; media_type?: string; total_bytes?: number }
      if (category === undefined || type === undefined || total === undefined) return invalid("media_type, total_bytes and media_category are required")
      const id = digits()
      media.set(id, { id, category, type, totalBytes: total, received: 0, segments: 0, pollsLeft: null, finalized: false, altText: null })
      return { status: 200, body: { data: { id, media_key: `7_${id}`, expires_after_secs: 86_400 } } }
    }
    const append = /^\/2\/media\/upload\/([0-9]{1,19})\/(append|finalize)$/.exec(path)
    if (append !== null && method === "POST") {
      const item = media.get(append[1]!)
      if (item === undefined) return invalid("Invalid media_id", { id: [append[1]] })
      if (append[2] === "append") {
        const parsed = json(request, raw, "/2/media/upload/{id}/append", "post")
        if (!("value" in parsed)) return parsed
        if (parsed.value.segment_index !== item.segments) return invalid(`Expected segment_index ${item.segments}`)
        item.received += Buffer.from(String(parsed.value.media), "base64").length
        item.segments++
        return { status: 200, body: { data: { expires_at: Math.floor(Date.now() / 1000) + 86_400 } } }
      }
      if (item.received !== item.totalBytes) {
        return invalid(`File size mismatch: received ${item.received} bytes of ${item.totalBytes}`, { total_bytes: [String(item.totalBytes)] })
      }
      item.finalized = true
      item.pollsLeft = item.category === "tweet_image" ? null : options.processingPolls ?? 2
      return { status: 200, body: { data: { id: item.id, media_key: `7_${item.id}`, size: item.totalBytes, expires_after_secs: 86_400, ...processing(item) } } }
    }
    if (method === "GET" && path === "/2/media/upload") {
      const item = media.get(url.searchParams.get("media_id") ?? "")
      if (item === undefined || !item.finalized) return invalid("Invalid media_id", { media_id: [url.searchParams.get("media_id") ?? ""] })
      if (item.pollsLeft !== null && item.pollsLeft > 0) {
        item.pollsLeft--
        if (item.pollsLeft === 0 && failProcessing) {
          failProcessing = false
          item.pollsLeft = -1
        }
      }
      return { status: 200, body: { data: { id: item.id, media_key: `7_${item.id}`, size: item.totalBytes, expires_after_secs: 86_400, ...processing(item) } } }
    }
    if (method === "POST" && path === "/2/media/metadata") {
      const parsed = json(request, raw, "/2/media/metadata", "post")
      if (!("value" in parsed)) return parsed
      const body = parsed.value as { id: string; metadata?: { alt_text?: { text?: string } } }
      const item = media.get(body.id)
      if (item === undefined) return invalid("Invalid media id", { id: [body.id] })
      const alt = body.metadata?.alt_text?.text
      if (alt !== undefined && alt.length > 1000) return invalid("alt_text.text is longer than 1000 characters")
      item.altText = alt ?? item.altText
      return { status: 200, body: { data: { id: item.id, associated_metadata: body.metadata ?? {} } } }
    }
    return problem(404, "Not Found", `The fake serves no ${method} ${path}`)
  }

  const processing = (item: StoredMedia) =>
    item.pollsLeft === null
      ? {}
      : item.pollsLeft < 0
      ? { processing_info: { state: "failed", progress_percent: 100 } }
      : item.pollsLeft === 0
      ? { processing_info: { state: "succeeded", progress_percent: 100 } }
      : { processing_info: { state: item.pollsLeft > 1 ? "pending" : "in_progress", check_after_secs: options.checkAfterSecs ?? 1, progress_percent: item.pollsLeft > 1 ? 0 : 50 } }

  /**
   * A post's text as X hands it back: each link replaced by its t.co link (the entities say which),
   * and &, < and > escaped.
   */
  const shown = (text: string) => {
    let out = ""
    let from = 0
    const urls: Array<{ start: number; end: number; url: string; expanded_url: string; display_url: string }> = []
    for (const link of twitterText.extractUrlsWithIndices(text)) {
      const short = `https://t.co/${createHash("sha256").update(link.url).digest("base64url").slice(0, 10)}`
      out += text.slice(from, link.indices[0])
      urls.push({ start: out.length, end: out.length + short.length, url: short, expanded_url: link.url, display_url: link.url.replace(/^https?:\/\//, "") })
      out += short
      from = link.indices[1]
    }
    out += text.slice(from)
    return { text: out.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"), urls }
  }

  const render = (post: StoredPost, fields: string) => {
    const want = new Set(fields.split(","))
    const { text, urls } = shown(post.text)
    return {
      id: post.id,
      text,
      edit_history_post_ids: [post.id],
      ...(want.has("entities") && urls.length > 0 ? { entities: { urls } } : {}),
      ...(want.has("created_at") ? { created_at: post.createdAt } : {}),
      ...(want.has("public_metrics")
        ? { public_metrics: { repost_count: 2, reply_count: 3, like_count: 5, quote_count: 1, bookmark_count: 4, impression_count: 120 } }
        : {}),
      ...(want.has("non_public_metrics") ? { non_public_metrics: { impression_count: 121, url_link_clicks: 7, user_profile_clicks: 2 } } : {})
    }
  }

  const send = (response: ServerResponse, reply: Reply, api: boolean) => {
    const headers: Record<string, string> = { ...reply.headers }
    if (api) {
      headers["x-rate-limit-limit"] ??= "100"
      headers["x-rate-limit-remaining"] ??= "99"
      headers["x-rate-limit-reset"] ??= String(Math.floor(Date.now() / 1000) + 900)
    }
    if (reply.location !== undefined) headers.location = reply.location
    if (reply.body === undefined) {
      response.writeHead(reply.status, headers).end()
      return
    }
    const isProblem = reply.status >= 400 && typeof reply.body === "object" && reply.body !== null && "type" in reply.body
    const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body)
    headers["content-type"] ??= typeof reply.body === "string" ? "text/plain; charset=utf-8" : isProblem ? "application/problem+json" : "application/json; charset=utf-8"
    response.writeHead(reply.status, headers).end(text)
  }

  const server = createServer((request, response) => {
    void (async () => {
      const raw = await readBody(request)
      const url = new URL(request.url ?? "/", "http://fake")
      const method = request.method ?? "GET"
      calls.push(`${method} ${url.pathname}`)
      if (method === "GET" && url.pathname === "/i/oauth2/authorize") return send(response, authorize(url), false)
      if (method === "POST" && url.pathname === "/2/oauth2/token") return send(response, token(request, raw), false)
      const fault = injected.shift()
      if (typeof fault === "object") {
        return send(response, { status: fault.status, body: fault.body, ...(fault.headers === undefined ? {} : { headers: { ...fault.headers } }) }, true)
      }
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]
      const grant = bearer === undefined ? undefined : tokens.get(bearer)
      const reply = grant === undefined || grant.expired ? unauthorized : api(request, url, raw, grant.scopes)
      // X acted on the call; its answer never comes (the connection stays open until close) or is lost.
      if (fault === "hang") return
      if (fault === "lose") return request.socket.destroy()
      send(response, reply, true)
    })().catch((error: unknown) => {
      response.writeHead(500, { "content-type": "application/problem+json" }).end(JSON.stringify({ title: "Internal Error", detail: String(error), type: "https://api.x.com/2/problems/internal-error" }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url,
    clientId,
    clientSecret,
    user,
    failNext: (reply) => void injected.push(reply),
    hangNext: () => void injected.push("hang"),
    loseAnswerNext: () => void injected.push("lose"),
    expireToken: () => tokens.forEach((grant) => (grant.expired = true)),
    revokeGrant: () => {
      tokens.forEach((grant) => (grant.expired = true))
      refreshTokens.clear()
    },
    revokeScope: (scope) => {
      tokens.forEach((grant) => grant.scopes.delete(scope))
      refreshTokens.forEach((scopes) => scopes.delete(scope))
    },
    publishScope: "tweet.write",
    posts: () =>
      [...posts.values()].filter((post) => post.inReplyTo === null).map((post): FakePost => ({ id: post.id, text: post.text, media: post.mediaIds.length })),
    refreshes: () => refreshes,
    stored: () => [...posts.values()],
    media: (id) => media.get(id),
    failNextProcessing: () => void (failProcessing = true),
    calls: () => [...calls],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
