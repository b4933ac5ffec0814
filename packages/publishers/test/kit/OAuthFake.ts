// A generic OAuth 2 platform on loopback for the connection flow's tests: an authorize endpoint
// that consents at once (302 to the redirect_uri with code and state), a token endpoint following
// RFC 6749 and RFC 7636 (S256 checked, codes single-use, refresh tokens rotating, client by HTTP
// Basic), and a small API with a Bearer token: GET /2/me, POST /2/media (bytes), POST /2/posts
// (needs the posts.write scope), GET /2/posts?marker=, DELETE /2/posts/{id}. It offers the hooks
// publisherContract drives, so the contract runs against it (FakeRoute.test.ts).
import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, type Scope } from "effect"
import type { InjectedReply } from "./publisherContract.js"

export interface OAuthFakeOptions {
  readonly clientId: string
  readonly clientSecret: string
  /** Who consents: the platform's id and username. */
  readonly user?: { readonly id: string; readonly username: string }
  /** Seconds an access token lives (at first; `expiresIn` on the fake changes it). */
  readonly expiresIn?: number
  /** Milliseconds the token endpoint takes before answering a refresh. */
  readonly refreshDelayMs?: number
}

interface Grant {
  readonly userId: string
  scope: string
  access: string
  refresh: string
  accessValid: boolean
  refreshValid: boolean
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify(body))
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

export const startOAuthFake = (options: OAuthFakeOptions): Effect.Effect<OAuthFake, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const fake = new OAuthFake(options)
      await new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve))
      return fake
    }),
    (fake) => Effect.promise(() => fake.close())
  )

export class OAuthFake {
  readonly server = createServer((request, response) => {
    this.handle(request, response).catch((error: unknown) => json(response, 500, { error: String(error) }))
  })
  private readonly codes = new Map<string, { challenge: string; redirectUri: string; scope: string }>()
  private readonly grants: Array<Grant> = []
  private injected: InjectedReply | undefined
  private hang = false
  private postSerial = 0
  private readonly media = new Set<string>()
  /** Every token endpoint call, by grant type. */
  readonly tokenCalls: Array<string> = []
  readonly posts: Array<{ readonly id: string; readonly text: string; readonly userId: string; readonly marker: string; readonly media: number }> = []
  /** The scope publishing needs. */
  readonly publishScope = "posts.write"
  user: { id: string; username: string }
  /** Seconds the next tokens live. */
  expiresIn: number

  constructor(readonly options: OAuthFakeOptions) {
    this.user = { ...(options.user ?? { id: "1001", username: "acme" }) }
    this.expiresIn = options.expiresIn ?? 7200
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  refreshes(): number {
    return this.tokenCalls.filter((grant) => grant === "refresh_token").length
  }

  failNext(reply: InjectedReply): void {
    this.injected = reply
  }

  /** The access tokens in use stop working; refresh tokens still work. */
  expireToken(): void {
    for (const grant of this.grants) grant.accessValid = false
  }

  /** The next API call is acted on, then never answered. */
  hangNext(): void {
    this.hang = true
  }

  revokeScope(scope: string): void {
    for (const grant of this.grants) grant.scope = grant.scope.split(" ").filter((granted) => granted !== scope).join(" ")
  }

  /** Access and refresh tokens both stop working. */
  revokeGrant(): void {
    for (const grant of this.grants) {
      grant.accessValid = false
      grant.refreshValid = false
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }

  private issue(grant: Grant) {
    grant.access = `at_${randomBytes(12).toString("hex")}`
    grant.refresh = `rt_${randomBytes(12).toString("hex")}`
    grant.accessValid = true
    grant.refreshValid = true
    return {
      token_type: "bearer",
      access_token: grant.access,
      refresh_token: grant.refresh,
      expires_in: this.expiresIn,
      scope: grant.scope
    }
  }

  private async handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? "/", this.url)
    if (request.method === "GET" && url.pathname === "/oauth/authorize") return this.authorize(url, response)
    if (request.method === "POST" && url.pathname === "/oauth/token") return this.token(request, response)
    const injected = this.injected
    if (injected !== undefined) {
      this.injected = undefined
      if (typeof injected.body === "string") {
        response.writeHead(injected.status, { ...injected.headers })
        return response.end(injected.body)
      }
      return json(response, injected.status, injected.body ?? { title: `HTTP ${injected.status}`, status: injected.status }, { ...injected.headers })
    }
    const hang = this.hang
    this.hang = false
    // Acted on, never answered: the socket stays open until the fake closes.
    const answer = hang ? () => undefined : (status: number, body: unknown) => json(response, status, body)
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]
    const grant = this.grants.find((candidate) => candidate.access === bearer && candidate.accessValid)
    if (grant === undefined) return answer(401, { title: "Unauthorized", status: 401, detail: "Unauthorized" })
    if (request.method === "GET" && url.pathname === "/2/me") {
      return answer(200, { data: { id: this.user.id, username: this.user.username } })
    }
    if (request.method === "POST" && url.pathname === "/2/media") {
      const bytes = await readBody(request)
      if (bytes.length === 0) return answer(400, { title: "Invalid Request", detail: "no media bytes" })
      const id = `m${this.media.size + 1}`
      this.media.add(id)
      return answer(200, { data: { id } })
    }
    if (request.method === "POST" && url.pathname === "/2/posts") {
      if (!grant.scope.split(" ").includes(this.publishScope)) {
        return answer(403, { title: "Forbidden", status: 403, detail: `the token lacks the ${this.publishScope} scope` })
      }
      const body = JSON.parse(await readBody(request)) as { text?: unknown; marker?: unknown; media_ids?: unknown }
      if (typeof body.text !== "string") return answer(400, { title: "Invalid Request", detail: "text is required" })
      const mediaIds = Array.isArray(body.media_ids) ? body.media_ids.map(String) : []
      if (mediaIds.some((id) => !this.media.has(id))) return answer(400, { title: "Invalid Request", detail: "unknown media id" })
      const post = { id: String(++this.postSerial), text: body.text, userId: grant.userId, marker: String(body.marker ?? ""), media: mediaIds.length }
      this.posts.push(post)
      return answer(201, { data: { id: post.id, text: post.text } })
    }
    if (request.method === "GET" && url.pathname === "/2/posts") {
      const found = this.posts.filter((post) => post.marker === url.searchParams.get("marker"))
      return answer(200, { data: found.map((post) => ({ id: post.id, text: post.text })) })
    }
    const deleting = /^\/2\/posts\/([^/]+)$/.exec(url.pathname)
    if (request.method === "DELETE" && deleting !== null) {
      const index = this.posts.findIndex((post) => post.id === deleting[1])
      if (index === -1) return answer(404, { title: "Not Found", status: 404 })
      this.posts.splice(index, 1)
      return answer(200, { data: { deleted: true } })
    }
    return answer(404, { title: "Not Found" })
  }

  private authorize(url: URL, response: ServerResponse) {
    const param = (name: string) => url.searchParams.get(name) ?? ""
    if (param("response_type") !== "code" || param("client_id") !== this.options.clientId) {
      return json(response, 400, { error: "invalid_request" })
    }
    if (param("code_challenge_method") !== "S256" || param("code_challenge") === "") {
      return json(response, 400, { error: "invalid_request", error_description: "PKCE S256 is required" })
    }
    const code = `code_${randomBytes(12).toString("hex")}`
    this.codes.set(code, { challenge: param("code_challenge"), redirectUri: param("redirect_uri"), scope: param("scope") })
    const target = new URL(param("redirect_uri"))
    target.searchParams.set("code", code)
    target.searchParams.set("state", param("state"))
    response.writeHead(302, { location: target.toString() })
    response.end()
  }

  private async token(request: IncomingMessage, response: ServerResponse) {
    const form = new URLSearchParams(await readBody(request))
    const grantType = form.get("grant_type") ?? ""
    this.tokenCalls.push(grantType)
    const expected = `Basic ${Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString("base64")}`
    if (request.headers.authorization !== expected) return json(response, 401, { error: "invalid_client" })
    if (grantType === "authorization_code") {
      const code = this.codes.get(form.get("code") ?? "")
      this.codes.delete(form.get("code") ?? "")
      const verifier = form.get("code_verifier") ?? ""
      if (code === undefined || code.redirectUri !== form.get("redirect_uri")) {
        return json(response, 400, { error: "invalid_grant", error_description: "the code is unknown or used" })
      }
      if (createHash("sha256").update(verifier).digest("base64url") !== code.challenge) {
        return json(response, 400, { error: "invalid_grant", error_description: "the code_verifier does not match the challenge" })
      }
      const grant: Grant = { userId: this.user.id, scope: code.scope, access: "", refresh: "", accessValid: false, refreshValid: false }
      this.grants.push(grant)
      return json(response, 200, this.issue(grant))
    }
    if (grantType === "refresh_token") {
      if (this.options.refreshDelayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, this.options.refreshDelayMs))
      const grant = this.grants.find((candidate) => candidate.refresh === form.get("refresh_token") && candidate.refreshValid)
      if (grant === undefined) return json(response, 400, { error: "invalid_grant", error_description: "the refresh token is invalid" })
      return json(response, 200, this.issue(grant))
    }
    return json(response, 400, { error: "unsupported_grant_type" })
  }
}
