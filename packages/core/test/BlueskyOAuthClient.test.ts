import { describe, expect, it } from "@effect/vitest"
import { blueskyClient, blueskyClientMetadata } from "../src/index.js"

describe("Herald as an atproto OAuth client", () => {
  it("is the metadata document's URL on https, whose document names that URL as client_id and Herald's callback as its redirect URI", () => {
    const client = blueskyClient("https://herald.example/")
    expect(client).toEqual({
      clientId: "https://herald.example/oauth/bluesky/client-metadata.json",
      redirectUri: "https://herald.example/oauth/callback/bluesky"
    })
    expect(blueskyClientMetadata("https://herald.example/")).toMatchObject({
      client_id: client!.clientId,
      redirect_uris: [client!.redirectUri],
      scope: "atproto transition:generic",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      dpop_bound_access_tokens: true,
      application_type: "web"
    })
  })

  it("is the loopback client on a loopback http URL, localhost's redirect URI on 127.0.0.1; none elsewhere on http", () => {
    expect(blueskyClient("http://localhost:8080")).toEqual({
      clientId: "http://localhost?redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Foauth%2Fcallback%2Fbluesky&scope=atproto%20transition%3Ageneric",
      redirectUri: "http://127.0.0.1:8080/oauth/callback/bluesky"
    })
    expect(blueskyClient("http://[::1]:9")?.redirectUri).toBe("http://[::1]:9/oauth/callback/bluesky")
    expect(blueskyClient("http://herald.internal:8080")).toBeNull()
    expect(blueskyClient("http://localhost.evil.example")).toBeNull()
  })
})
