import { createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { sign, signatureHeader, verify, WebhookHeader } from "../src/index.js"

const secret = "whsec_test_0123456789"
const rawBody = JSON.stringify({ event: "post.published", delivery_id: "d", data: { caption: "héllo" } })
const timestamp = 1_767_225_600 // 2026-01-01T00:00:00Z
const at = (seconds: number) => ({ now: new Date(seconds * 1000) })

const headersFor = (signature: string, overrides: Record<string, string> = {}) => ({
  [WebhookHeader.event]: "post.published",
  [WebhookHeader.delivery]: "6f1c3a4e-0000-5000-8000-000000000001",
  [WebhookHeader.timestamp]: String(timestamp),
  [WebhookHeader.signature]: signature,
  ...overrides
})

const tagOf = <A, E extends { readonly _tag: string }>(result: Either.Either<A, E>) =>
  Either.match(result, { onLeft: (error) => error._tag, onRight: () => "Right" })
const messageOf = <A, E extends Error>(result: Either.Either<A, E>) =>
  Either.match(result, { onLeft: (error) => error.message, onRight: () => "accepted" })

describe("sign", () => {
  it("is v1= and the hex HMAC-SHA256 of <timestamp>.<raw body>, as node:crypto computes it", () => {
    const expected = createHmac("sha256", secret).update(`${timestamp}.${rawBody}`, "utf8").digest("hex")
    expect(sign({ secret, timestamp, rawBody })).toBe(`v1=${expected}`)
    expect(sign({ secret, timestamp, rawBody: Buffer.from(rawBody) })).toBe(`v1=${expected}`)
  })
})

describe("verify", () => {
  const signature = sign({ secret, timestamp, rawBody })

  it("accepts a genuine request and returns what it vouches for", () => {
    expect(verify(rawBody, headersFor(signature), secret, at(timestamp))).toEqual(Either.right({
      event: "post.published",
      deliveryId: "6f1c3a4e-0000-5000-8000-000000000001",
      timestamp
    }))
  })

  it("reads header names case-insensitively from plain objects and from Headers", () => {
    const upper = Object.fromEntries(Object.entries(headersFor(signature)).map(([k, v]) => [k.toUpperCase(), v]))
    expect(tagOf(verify(rawBody, upper, secret, at(timestamp)))).toBe("Right")
    expect(tagOf(verify(Buffer.from(rawBody), new Headers(upper), secret, at(timestamp)))).toBe("Right")
  })

  it("accepts the edges of the 300-second tolerance and refuses one second beyond, both ways", () => {
    expect(tagOf(verify(rawBody, headersFor(signature), secret, at(timestamp + 300)))).toBe("Right")
    expect(tagOf(verify(rawBody, headersFor(signature), secret, at(timestamp - 300)))).toBe("Right")
    expect(tagOf(verify(rawBody, headersFor(signature), secret, at(timestamp + 301)))).toBe("StaleTimestamp")
    expect(tagOf(verify(rawBody, headersFor(signature), secret, at(timestamp - 301)))).toBe("FutureTimestamp")
  })

  it("honours a custom tolerance", () => {
    const options = { ...at(timestamp + 61), toleranceSeconds: 60 }
    expect(tagOf(verify(rawBody, headersFor(signature), secret, options))).toBe("StaleTimestamp")
  })

  it("refuses a tampered body, a wrong secret and a re-dated signature", () => {
    expect(tagOf(verify(rawBody.replace("héllo", "hello"), headersFor(signature), secret, at(timestamp)))).toBe("BadSignature")
    expect(tagOf(verify(rawBody, headersFor(signature), "another secret", at(timestamp)))).toBe("BadSignature")
    const redated = headersFor(signature, { [WebhookHeader.timestamp]: String(timestamp + 1) })
    expect(tagOf(verify(rawBody, redated, secret, at(timestamp)))).toBe("BadSignature")
  })

  it("names a missing header", () => {
    const { [WebhookHeader.signature]: _, ...unsigned } = headersFor(signature)
    const result = verify(rawBody, unsigned, secret, at(timestamp))
    expect(tagOf(result)).toBe("MissingHeader")
    expect(messageOf(result)).toBe("the x-service-signature header is missing")
  })

  it("refuses malformed timestamps and signatures", () => {
    for (const bad of ["1.5", "-1", "soon", "1767225600000000000"]) {
      expect(tagOf(verify(rawBody, headersFor(signature, { [WebhookHeader.timestamp]: bad }), secret, at(timestamp))))
        .toBe("MalformedHeader")
    }
    for (const bad of ["v1=abc", signature.replace("v1=", "v0="), signature.slice(3), `${signature}zz`]) {
      expect(tagOf(verify(rawBody, headersFor(bad), secret, at(timestamp)))).toBe("MalformedHeader")
    }
  })

  it("accepts any of several space-separated v1 signatures (secret rotation) and skips other schemes", () => {
    const rotating = signatureHeader(["old secret", secret], timestamp, rawBody)
    expect(rotating.split(" ")).toHaveLength(2)
    expect(tagOf(verify(rawBody, headersFor(rotating), secret, at(timestamp)))).toBe("Right")
    expect(tagOf(verify(rawBody, headersFor(rotating), "old secret", at(timestamp)))).toBe("Right")
    expect(tagOf(verify(rawBody, headersFor(`v2=whatever ${signature}`), secret, at(timestamp)))).toBe("Right")
    expect(tagOf(verify(rawBody, headersFor(rotating), "neither", at(timestamp)))).toBe("BadSignature")
  })

  it("accepts a list of receiver secrets", () => {
    expect(tagOf(verify(rawBody, headersFor(signature), ["next secret", secret], at(timestamp)))).toBe("Right")
  })

  it("never puts the secret or the expected digest in an error message", () => {
    const result = verify(rawBody, headersFor(sign({ secret: "wrong", timestamp, rawBody })), secret, at(timestamp))
    const message = messageOf(result)
    expect(message).toBe("no v1 signature matches the body and timestamp for this secret")
    expect(message).not.toContain(secret)
    expect(message).not.toContain(signature.slice(3))
  })
})
