// A generic OAuth 2 platform on loopback for the connection flow's tests: an authorize endpoint
// that consents at once (302 to the redirect_uri with code and state), a token endpoint following
// RFC 6749 and RFC 7636 (S256 checked, codes single-use, refresh tokens rotating, client by HTTP
// Basic), GET /2/me for the identity and POST /2/posts for a post, both with a Bearer token.
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
  readonly scope: string
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
  /** Every token endpoint call, by grant type. */
  readonly tokenCalls: Array<string> = []
  readonly posts: Array<{ readonly id: string; readonly text: string; readonly userId: string }> = []
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
      return json(response, injected.status, injected.body ?? {}, { ...injected.headers })
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]
    const grant = this.grants.find((candidate) => candidate.access === bearer && candidate.accessValid)
    if (grant === undefined) return json(response, 401, { title: "Unauthorized", status: 401, detail: "Unauthorized" })
    if (request.method === "GET" && url.pathname === "/2/me") {
      return json(response, 200, { data: { id: this.user.id, username: this.user.username } })
    }
    if (request.method === "POST" && url.pathname === "/2/posts") {
      const body = JSON.parse(await readBody(request)) as { text?: unknown }
      if (typeof body.text !== "string") return json(response, 400, { title: "Invalid Request", detail: "text is required" })
      const post = { id: String(this.posts.length + 1), text: body.text, userId: grant.userId }
      this.posts.push(post)
      return json(response, 201, { data: { id: post.id, text: post.text } })
    }
    return json(response, 404, { title: "Not Found" })
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
