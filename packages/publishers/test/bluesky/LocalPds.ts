/**
 * A real atproto PDS (@atproto/pds, SQLite) with an in-process PLC directory, both bound to
 * 127.0.0.1 only. The configuration copies @atproto/dev-env's TestPds; dev-env itself is not used
 * because it listens on every interface and pulls the AppView.
 */
import { createHmac, randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { request as httpRequest, type Server } from "node:http"
import { createServer, type AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Secp256k1Keypair } from "@atproto/crypto"
import * as pds from "@atproto/pds"
import { Database as PlcDatabase, PlcServer } from "@did-plc/server"
import { asksForNonce, type DpopKey } from "../../src/bluesky/Dpop.js"

export interface LocalAccount {
  readonly did: string
  readonly handle: string
  /** The account's main password. */
  readonly password: string
}

export interface LocalPds {
  /** The PDS's canonical URL, http://localhost:PORT (what the PDS calls itself). */
  readonly url: string
  readonly port: number
  /** The PLC directory the PDS registers its accounts' DID documents with (HERALD_BLUESKY_PLC_URL). */
  readonly plcUrl: string
  /**
   * How long the OAuth access tokens the PDS issues from now on live (the reference server's
   * 60 minutes otherwise): short ones make Herald refresh them for real within a test.
   */
  readonly setOAuthTokenLifetime: (ms: number) => void
  /**
   * Revokes an OAuth token at the PDS's revocation endpoint (RFC 7009), as the client signing out
   * does: with a proof of the DPoP key the token is bound to (a revocation without it is ignored).
   */
  readonly revokeOAuthToken: (token: string, clientId: string, key: DpopKey) => Promise<void>
  readonly createAccount: (name: string) => Promise<LocalAccount>
  /** A new app password of the account (what people give third-party apps such as Herald). */
  readonly createAppPassword: (account: LocalAccount, name: string) => Promise<string>
  /** Revokes the app password: the PDS then refuses to refresh any session opened with it. */
  readonly revokeAppPassword: (account: LocalAccount, name: string) => Promise<void>
  /** The owner deactivates the account (com.atproto.server.deactivateAccount). */
  readonly deactivate: (account: LocalAccount) => Promise<void>
  /**
   * An access token the PDS itself judges expired: the claims of `accessJwt` with an expiry in the
   * past, signed with this PDS's JWT secret, as the PDS would see the real token two hours on.
   */
  readonly expiredCopy: (accessJwt: string) => string
  /**
   * The account owner at the PDS's OAuth consent page (the authorization server's own sign-in and
   * consent API, as its page's script calls it): opens `authorizeUrl`, signs in with the main
   * password, accepts, and answers where the PDS sends the browser back (the client's redirect
   * URI with `code`, `state` and `iss`).
   */
  readonly consent: (authorizeUrl: string, account: LocalAccount) => Promise<URL>
  readonly close: () => Promise<void>
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })

const listenLoopback = (app: { listen: (port: number, host: string) => Server }, port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = app.listen(port, "127.0.0.1")
    server.once("listening", () => resolve(server))
    server.once("error", reject)
  })

const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

const base64url = (value: string | Buffer): string => Buffer.from(value).toString("base64url")

export interface LocalPdsOptions {
  /** The AppView the PDS proxies app.bsky.* queries to; none answers when absent. */
  readonly appView?: { readonly url: string; readonly did: string }
}

export const startLocalPds = async (options: LocalPdsOptions = {}): Promise<LocalPds> => {
  const plc = PlcServer.create({ db: PlcDatabase.mock() })
  const plcServer = await listenLoopback(plc.app, 0)
  const plcUrl = `http://127.0.0.1:${(plcServer.address() as AddressInfo).port}`

  const port = await freePort()
  const url = `http://localhost:${port}`
  const directory = await mkdtemp(join(tmpdir(), "herald-pds-"))
  const jwtSecret = randomBytes(16).toString("hex")
  const rotationKey = await Secp256k1Keypair.create({ exportable: true })
  const env: pds.ServerEnvironment = {
    devMode: true,
    port,
    hostname: "localhost",
    dataDirectory: directory,
    blobstoreDiskLocation: join(directory, "blobs"),
    recoveryDidKey: (await Secp256k1Keypair.create()).did(),
    adminPassword: randomBytes(16).toString("hex"),
    jwtSecret,
    didPlcUrl: plcUrl,
    serviceHandleDomains: [".test"],
    bskyAppViewUrl: options.appView?.url ?? "https://appview.invalid",
    bskyAppViewDid: options.appView?.did ?? "did:example:invalid",
    modServiceUrl: "https://moderator.invalid",
    modServiceDid: "did:example:invalid",
    plcRotationKeyK256PrivateKeyHex: Buffer.from(await rotationKey.export()).toString("hex"),
    inviteRequired: false,
    disableSsrfProtection: true,
    serviceName: "Herald test PDS"
  }
  const server = await pds.PDS.create(pds.envToCfg(env), pds.envToSecrets(env))
  await server.ctx.sequencer.start()
  const pdsServer = await listenLoopback(server.app, port)

  const createAccount = async (name: string): Promise<LocalAccount> => {
    const handle = `${name}.test`
    const password = randomBytes(12).toString("hex")
    const response = await fetch(`http://127.0.0.1:${port}/xrpc/com.atproto.server.createAccount`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ handle, email: `${name}@example.test`, password })
    })
    if (!response.ok) throw new Error(`createAccount ${handle}: ${response.status} ${await response.text()}`)
    const created = (await response.json()) as { did: string }
    return { did: created.did, handle, password }
  }

  const xrpc = async (nsid: string, body: unknown, token?: string): Promise<unknown> => {
    const response = await fetch(`http://127.0.0.1:${port}/xrpc/${nsid}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body)
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`${nsid}: ${response.status} ${text}`)
    return text === "" ? null : JSON.parse(text)
  }
  /** The owner's own session, opened with the main password (app-password management needs it). */
  const ownerSession = async (account: LocalAccount) =>
    ((await xrpc("com.atproto.server.createSession", { identifier: account.handle, password: account.password })) as { accessJwt: string })
      .accessJwt

  const expiredCopy = (accessJwt: string): string => {
    const [header, payload] = accessJwt.split(".")
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8")) as Record<string, unknown>
    const now = Math.floor(Date.now() / 1000)
    const signed = `${header}.${base64url(JSON.stringify({ ...claims, iat: now - 7300, exp: now - 100 }))}`
    return `${signed}.${createHmac("sha256", jwtSecret).update(signed).digest("base64url")}`
  }

  return {
    url,
    port,
    plcUrl,
    setOAuthTokenLifetime: (ms) => {
      // The provider's option, which the PDS does not expose in its configuration.
      ;(server.ctx as unknown as { oauthProvider: { tokenManager: { tokenMaxAge: number } } }).oauthProvider.tokenManager.tokenMaxAge = ms
    },
    revokeOAuthToken: async (token, clientId, key) => {
      const endpoint = `${url}/oauth/revoke`
      const revoke = (nonce?: string) =>
        fetch(endpoint, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            DPoP: key.proof({ method: "POST", url: endpoint, nonce, now: Math.floor(Date.now() / 1000) })
          },
          body: new URLSearchParams({ token, client_id: clientId }).toString()
        })
      let response = await revoke()
      if (asksForNonce(response.status, response.headers.get("www-authenticate") ?? undefined, await response.clone().text())) {
        response = await revoke(response.headers.get("dpop-nonce") ?? undefined)
      }
      if (!response.ok) throw new Error(`revoke: ${response.status} ${await response.text()}`)
    },
    createAccount,
    createAppPassword: async (account, name) =>
      ((await xrpc("com.atproto.server.createAppPassword", { name }, await ownerSession(account))) as { password: string }).password,
    revokeAppPassword: async (account, name) => {
      await xrpc("com.atproto.server.revokeAppPassword", { name }, await ownerSession(account))
    },
    deactivate: async (account) => {
      await xrpc("com.atproto.server.deactivateAccount", {}, await ownerSession(account))
    },
    expiredCopy,
    consent: async (authorizeUrl, account) => {
      const cookies = new Map<string, string>()
      // node:http rather than fetch: fetch sets its own Sec-Fetch-* headers, and the page and its
      // API check them as a browser would send them.
      const browse = (target: string, headers: Record<string, string>, body?: string) =>
        new Promise<{ status: number; location: string | undefined; text: string }>((resolve, reject) => {
          const request = httpRequest(target, {
            method: body === undefined ? "GET" : "POST",
            headers: { ...headers, cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") }
          }, (response) => {
            for (const line of response.headers["set-cookie"] ?? []) {
              const [pair] = line.split(";")
              const at = pair!.indexOf("=")
              cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim())
            }
            const chunks: Array<Buffer> = []
            response.on("data", (chunk: Buffer) => chunks.push(chunk))
            response.on("end", () => resolve({ status: response.statusCode ?? 0, location: response.headers.location, text: Buffer.concat(chunks).toString("utf8") }))
          })
          request.on("error", reject)
          request.end(body)
        })
      const page = await browse(authorizeUrl, { "sec-fetch-mode": "navigate", "sec-fetch-dest": "document", "sec-fetch-site": "cross-site" })
      if (page.status !== 200) throw new Error(`authorize page: ${page.status} ${page.text}`)
      const api = async (endpoint: string, input: unknown) => {
        const answer = await browse(`${url}/@atproto/oauth-provider/~api${endpoint}`, {
          "content-type": "application/json",
          origin: url,
          referer: authorizeUrl,
          "sec-fetch-mode": "same-origin",
          "sec-fetch-site": "same-origin",
          "sec-fetch-dest": "empty",
          "x-csrf-token": cookies.get("csrf-token") ?? ""
        }, JSON.stringify(input))
        if (answer.status !== 200) throw new Error(`${endpoint}: ${answer.status} ${answer.text}`)
        return JSON.parse(answer.text) as Record<string, unknown>
      }
      const signedIn = await api("/sign-in", { locale: "en", username: account.handle, password: account.password, remember: true })
      const { sub } = signedIn.account as { sub: string }
      const consented = await api("/consent", { sub })
      // The page then navigates to the PDS's redirect endpoint, which sends the browser to the client.
      const redirect = await browse(String(consented.url), {
        referer: authorizeUrl,
        "sec-fetch-mode": "navigate",
        "sec-fetch-site": "same-origin",
        "sec-fetch-dest": "document"
      })
      if (redirect.location === undefined) throw new Error(`authorize redirect: ${redirect.status} ${redirect.text}`)
      return new URL(redirect.location)
    },
    close: async () => {
      await closeServer(pdsServer)
      await server.destroy()
      await closeServer(plcServer)
      await plc.destroy()
      await rm(directory, { recursive: true, force: true })
    }
  }
}

/** A record as the PDS holds it (com.atproto.repo.getRecord, no session needed); null when gone. */
export const readRecord = async (pds: LocalPds, uri: string): Promise<{ cid: string; value: Record<string, unknown> } | null> => {
  const [, , repo, collection, rkey] = uri.split("/")
  const response = await fetch(
    `${pds.url}/xrpc/com.atproto.repo.getRecord?${new URLSearchParams({ repo: repo!, collection: collection!, rkey: rkey! })}`
  )
  if (response.status === 400) return null
  if (!response.ok) throw new Error(`getRecord ${uri}: ${response.status} ${await response.text()}`)
  return (await response.json()) as { cid: string; value: Record<string, unknown> }
}
