import { createPublicKey, verify } from "node:crypto"
import { describe, expect, it } from "vitest"
import { accessTokenHash, asksForNonce, dpopKeyOf, generateDpopKey } from "../../src/bluesky/Dpop.js"

const decode = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>

describe("DPoP proofs", () => {
  it("are ES256 JWTs signed by the key named in their header, with htm, htu without query, iat, a fresh jti, the nonce and ath", () => {
    const key = generateDpopKey()
    const request = { method: "post", url: "https://pds.example/xrpc/com.atproto.repo.createRecord?x=1#f", nonce: "n-1", accessToken: "tok", now: 1_800_000_000 }
    const proof = key.proof(request)
    const [header, payload, signature] = proof.split(".") as [string, string, string]
    const head = decode(header)
    expect(head).toMatchObject({ typ: "dpop+jwt", alg: "ES256", jwk: { kty: "EC", crv: "P-256", x: key.jwk.x, y: key.jwk.y } })
    expect(head.jwk).not.toHaveProperty("d")
    const claims = decode(payload)
    expect(claims).toMatchObject({ htm: "POST", htu: "https://pds.example/xrpc/com.atproto.repo.createRecord", iat: 1_800_000_000, nonce: "n-1", ath: accessTokenHash("tok") })
    // SHA-256 of "tok" in base64url, from `printf tok | openssl dgst -sha256 -binary`.
    expect(accessTokenHash("tok")).toBe("GnZ0607njffhrEOak8P6jjyUV4TU3sn9jjARc4svHWI")
    const publicKey = createPublicKey({ key: head.jwk as never, format: "jwk" })
    expect(verify("sha256", Buffer.from(`${header}.${payload}`), { key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"))).toBe(true)
    expect(decode(key.proof(request).split(".")[1]!).jti).not.toBe(claims.jti)
  })

  it("leave out nonce and ath when there are none, and sign the same way with a key restored from its stored JWK", () => {
    const stored = JSON.parse(JSON.stringify(generateDpopKey().jwk)) as ReturnType<typeof generateDpopKey>["jwk"]
    const [header, payload, signature] = dpopKeyOf(stored).proof({ method: "GET", url: "https://pds.example/a", now: 1 }).split(".") as [string, string, string]
    const claims = decode(payload)
    expect(claims).not.toHaveProperty("nonce")
    expect(claims).not.toHaveProperty("ath")
    const publicKey = createPublicKey({ key: { kty: "EC", crv: "P-256", x: stored.x, y: stored.y }, format: "jwk" })
    expect(verify("sha256", Buffer.from(`${header}.${payload}`), { key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"))).toBe(true)
  })

  it("tell a nonce request from other refusals", () => {
    expect(asksForNonce(400, undefined, `{"error":"use_dpop_nonce"}`)).toBe(true)
    expect(asksForNonce(401, `DPoP error="use_dpop_nonce"`, "")).toBe(true)
    expect(asksForNonce(401, `DPoP error="invalid_token"`, `{"error":"invalid_token"}`)).toBe(false)
    expect(asksForNonce(500, undefined, "use_dpop_nonce")).toBe(false)
  })
})
