/**
 * The local PDS as an atproto OAuth authorization server, step by step, with an atproto loopback
 * client id (http://localhost?redirect_uri=…&scope=…, which the spec allows for development and
 * which needs no client metadata document). The client here is the test's own flow (PAR, PKCE
 * S256, DPoP with server nonces, DPoP-bound tokens) signing with Herald's DPoP proofs
 * (src/bluesky/Dpop.ts): it pins down what the PDS asks for, independently of Herald's own
 * connection (AtprotoOAuth.ts), which BlueskyOAuth.test.ts tests against the same PDS.
 */
import { createHash, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { asksForNonce, type DpopKey, generateDpopKey } from "../../src/bluesky/Dpop.js"
import { type LocalAccount, type LocalPds, readRecord, startLocalPds } from "./LocalPds.js"

const base64url = (value: Buffer | string) => Buffer.from(value).toString("base64url")

/**
 * A DPoP call: the first answer of a server that wants a nonce is `use_dpop_nonce` with the nonce
 * in `DPoP-Nonce`; the call is made again with it.
 */
const withDpop = async (
  key: DpopKey,
  nonces: Map<string, string>,
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string },
  accessToken?: string
) => {
  const origin = new URL(url).origin
  const send = () =>
    fetch(url, {
      ...init,
      headers: {
        ...init.headers,
        DPoP: key.proof({ method: init.method, url, nonce: nonces.get(origin), accessToken, now: Math.floor(Date.now() / 1000) }),
        ...(accessToken === undefined ? {} : { authorization: `DPoP ${accessToken}` })
      }
    })
  let response = await send()
  const nonce = response.headers.get("dpop-nonce")
  if (nonce !== null) nonces.set(origin, nonce)
  if (asksForNonce(response.status, response.headers.get("www-authenticate") ?? undefined, await response.clone().text())) response = await send()
  return response
}

let pds: LocalPds
let owner: LocalAccount

beforeAll(async () => {
  pds = await startLocalPds()
  owner = await pds.createAccount("oauthowner")
}, 60_000)

afterAll(async () => {
  await pds?.close()
})

describe("the local PDS as an atproto OAuth authorization server", () => {
  it("takes a pushed authorization request with PKCE and DPoP from a loopback client, a sign-in and consent, a token exchange, a DPoP-bound write and a single-use refresh", async () => {
    const metadata = (await (await fetch(`${pds.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>
    expect(metadata).toMatchObject({
      issuer: pds.url,
      require_pushed_authorization_requests: true,
      dpop_signing_alg_values_supported: expect.arrayContaining(["ES256"]),
      code_challenge_methods_supported: expect.arrayContaining(["S256"])
    })
    const resource = (await (await fetch(`${pds.url}/.well-known/oauth-protected-resource`)).json()) as { authorization_servers: Array<string> }
    expect(resource.authorization_servers).toEqual([pds.url])

    const redirectUri = "http://127.0.0.1:8080/oauth/callback/bluesky"
    const scope = "atproto transition:generic"
    const clientId = `http://localhost?${new URLSearchParams({ redirect_uri: redirectUri, scope })}`
    const key = generateDpopKey()
    const nonces = new Map<string, string>()
    const verifier = base64url(randomBytes(32))
    const state = base64url(randomBytes(16))

    const par = await withDpop(key, nonces, String(metadata.pushed_authorization_request_endpoint), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_id: clientId,
        response_type: "code",
        // Herald's callback reads the query (the PDS's default for this client is the fragment).
        response_mode: "query",
        redirect_uri: redirectUri,
        scope,
        state,
        login_hint: owner.handle,
        code_challenge: base64url(createHash("sha256").update(verifier).digest()),
        code_challenge_method: "S256"
      }).toString()
    })
    expect(par.status).toBe(201)
    const { request_uri } = (await par.json()) as { request_uri: string }

    const authorizeUrl = `${String(metadata.authorization_endpoint)}?${new URLSearchParams({ client_id: clientId, request_uri })}`
    const callback = await pds.consent(authorizeUrl, owner)
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri)
    expect(callback.searchParams.get("code")).toMatch(/^cod-[0-9a-f]{64}$/)
    expect(callback.searchParams.get("state")).toBe(state)
    expect(callback.searchParams.get("iss")).toBe(pds.url)

    const token = await withDpop(key, nonces, String(metadata.token_endpoint), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: callback.searchParams.get("code")!,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: clientId
      }).toString()
    })
    expect(token.status, await token.clone().text()).toBe(200)
    const granted = (await token.json()) as { access_token: string; token_type: string; refresh_token?: string; sub: string; scope: string }
    expect(granted).toMatchObject({ token_type: "DPoP", sub: owner.did, scope: expect.stringContaining("atproto") })

    const createRecord = `${pds.url}/xrpc/com.atproto.repo.createRecord`
    const written = await withDpop(key, nonces, createRecord, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        repo: owner.did,
        collection: "app.bsky.feed.post",
        record: { $type: "app.bsky.feed.post", text: "Posted with a DPoP-bound token", createdAt: new Date().toISOString() }
      })
    }, granted.access_token)
    expect(written.status, await written.clone().text()).toBe(200)
    const { uri } = (await written.json()) as { uri: string }
    expect((await readRecord(pds, uri))?.value.text).toBe("Posted with a DPoP-bound token")

    // The token is bound to the key: presented as a Bearer token, or with another key's proof, it is refused.
    const asBearer = await fetch(createRecord, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${granted.access_token}` },
      body: JSON.stringify({ repo: owner.did, collection: "app.bsky.feed.post", record: { $type: "app.bsky.feed.post", text: "no", createdAt: new Date().toISOString() } })
    })
    expect(asBearer.status).toBeGreaterThanOrEqual(400)
    const otherKey = await withDpop(generateDpopKey(), new Map(nonces), createRecord, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ repo: owner.did, collection: "app.bsky.feed.post", record: { $type: "app.bsky.feed.post", text: "no", createdAt: new Date().toISOString() } })
    }, granted.access_token)
    expect(otherKey.status).toBe(401)

    // Refresh tokens are single-use and bound to the same key: one refresh works, its replay is refused.
    const refresh = (refreshToken: string) =>
      withDpop(key, nonces, String(metadata.token_endpoint), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId }).toString()
      })
    expect(granted.refresh_token).toEqual(expect.any(String))
    const renewed = await refresh(granted.refresh_token!)
    expect(renewed.status, await renewed.clone().text()).toBe(200)
    expect(((await renewed.json()) as { refresh_token: string }).refresh_token).not.toBe(granted.refresh_token)
    const replayed = await refresh(granted.refresh_token!)
    expect(replayed.status).toBe(400)
  }, 60_000)
})
