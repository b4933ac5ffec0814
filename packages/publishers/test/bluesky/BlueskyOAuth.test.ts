/**
 * Herald's atproto OAuth connection against the real local PDS as the authorization server:
 * the handle resolved to its DID, DID document and PDS, the pushed authorization request with
 * PKCE and DPoP, the owner's consent, the code exchanged with the same DPoP key, and then the
 * route publishing, probing, refreshing and taking down with the DPoP-bound tokens it stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ConnectionHealth, type PublishRequest, type SocialAccount } from "@herald/core"
import { Effect, Either } from "effect"
import { randomUUID } from "node:crypto"
import { dpopKeyOf, type DpopPrivateJwk } from "../../src/bluesky/Dpop.js"
import { type PdsHarness, png, readRecord, startPdsHarness } from "./PdsHarness.js"

let harness: PdsHarness

beforeAll(async () => {
  harness = await startPdsHarness()
}, 30_000)

afterAll(async () => {
  await harness?.close()
})

const publishing = (account: SocialAccount, text: string, media: PublishRequest["media"] = []): PublishRequest => ({
  account,
  text,
  media,
  configuration: undefined,
  marker: randomUUID()
})

const attempt = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))

describe("Bluesky through atproto OAuth on a real PDS", () => {
  it("connects through a consent, stores DPoP-bound tokens with their key and the account's PDS, and publishes, probes and takes down with them", async () => {
    const { account, local } = await harness.connectOAuth("oauthalice")
    expect(account).toMatchObject({ platform: "bluesky", route: "direct", username: "oauthalice.test", status: "active" })
    const stored = harness.credentials(account)
    expect(stored).toMatchObject({
      did: local.did,
      handle: "oauthalice.test",
      pds_url: harness.pds.url,
      issuer: harness.pds.url,
      token_endpoint: `${harness.pds.url}/oauth/token`,
      dpop_key: { kty: "EC", crv: "P-256" }
    })
    expect(String(stored.client_id)).toMatch(/^http:\/\/localhost\?redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A8080%2Foauth%2Fcallback%2Fbluesky&scope=atproto/)
    // The access token is DPoP-bound: as a Bearer token the PDS refuses it.
    const asBearer = await fetch(`${harness.pds.url}/xrpc/com.atproto.server.getSession`, { headers: { authorization: `Bearer ${String(stored.access_token)}` } })
    expect(asBearer.status).toBeGreaterThanOrEqual(400)

    const image = harness.media("image", png, { altText: "a dot", width: 1, height: 1 })
    const published = await Effect.runPromise(harness.adapters.publisher.publish(publishing(account, "Posted through OAuth #dpop", [image])))
    expect(published.platformPostId).toMatch(new RegExp(`^at://${local.did}/app\\.bsky\\.feed\\.post/`))
    const record = await readRecord(harness.pds, published.platformPostId)
    expect(record?.value).toMatchObject({ text: "Posted through OAuth #dpop", embed: { images: [{ alt: "a dot" }] } })

    const health = await Effect.runPromise(harness.adapters.probe!.check(account))
    expect(ConnectionHealth.$is("Alive")(health)).toBe(true)

    await Effect.runPromise(harness.adapters.publisher.takedown!(account, published.platformPostId))
    expect(await readRecord(harness.pds, published.platformPostId)).toBeNull()
  }, 60_000)

  it("refuses a state used already or never issued, and connects nothing more", async () => {
    const local = await harness.pds.createAccount("oauthbob")
    const callback = await harness.consentOAuth(local)
    const account = Either.getOrThrow(await harness.completeOAuth(callback))
    const again = await harness.completeOAuth(callback)
    expect(Either.flip(again)).toEqual(Either.right(expect.objectContaining({ _tag: "ConnectionStateInvalid", reason: "unknown" })))
    const forged = new URL(callback)
    forged.searchParams.set("state", "not-a-state-herald-issued")
    expect(Either.flip(await harness.completeOAuth(forged))).toEqual(Either.right(expect.objectContaining({ _tag: "ConnectionStateInvalid", reason: "unknown" })))
    expect(harness.reload(account).status).toBe("active")
  }, 60_000)

  it("refreshes short-lived tokens at the token endpoint with the same DPoP key (single-use refresh tokens rotate), and a refused refresh marks the account needs_reconnect", async () => {
    // Tokens that expire within AccountTokens' margin: every use refreshes first.
    harness.pds.setOAuthTokenLifetime(60_000)
    try {
      const { account } = await harness.connectOAuth("oauthcarol")
      const first = harness.credentials(account)
      const one = await Effect.runPromise(harness.adapters.publisher.publish(publishing(account, "after one refresh")))
      const second = harness.credentials(account)
      expect(second.refresh_token).not.toBe(first.refresh_token)
      expect(second.access_token).not.toBe(first.access_token)
      expect(second.dpop_key).toEqual(first.dpop_key)
      const two = await Effect.runPromise(harness.adapters.publisher.publish(publishing(account, "after another")))
      expect(harness.credentials(account).refresh_token).not.toBe(second.refresh_token)
      expect((await readRecord(harness.pds, one.platformPostId))?.value.text).toBe("after one refresh")
      expect((await readRecord(harness.pds, two.platformPostId))?.value.text).toBe("after another")

      // The owner signs Herald out at the PDS: the next refresh is refused.
      const current = harness.credentials(account)
      await harness.pds.revokeOAuthToken(String(current.refresh_token), String(current.client_id), dpopKeyOf(current.dpop_key as DpopPrivateJwk))
      const refused = await attempt(harness.adapters.publisher.publish(publishing(account, "never posted")))
      expect(Either.isLeft(refused) && refused.left).toMatchObject({ error: { category: "auth_expired" } })
      expect(harness.reload(account).status).toBe("needs_reconnect")
    } finally {
      harness.pds.setOAuthTokenLifetime(60 * 60_000)
    }
  }, 60_000)
})
