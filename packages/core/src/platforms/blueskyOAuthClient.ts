/**
 * Herald as an atproto OAuth client (https://atproto.com/specs/oauth). atproto clients are not
 * registered anywhere: the client id is the URL of the client's metadata document, which every
 * authorization server fetches. Herald publishes its own under its public URL; on a loopback
 * http URL (development) it is the loopback client the spec allows, whose id carries its redirect
 * URI and scope and needs no document.
 */
import { oauthCallbackPath } from "../ports/OAuthProviders.js"

/** The scope Herald asks for: atproto sign-in plus the generic transition scope (posting, blobs, deletes). */
export const blueskyOAuthScope = "atproto transition:generic"

/** Where Herald serves its client metadata, under its public URL. */
export const blueskyClientMetadataPath = "/oauth/bluesky/client-metadata.json"

const loopback = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?(\/|$)/

/** Herald's redirect URI for Bluesky under `publicUrl`. */
const redirectUriOf = (publicUrl: string) => `${publicUrl.replace(/\/+$/, "")}${oauthCallbackPath("bluesky")}`

/**
 * Herald as an atproto client under `publicUrl`: on https, its metadata document's URL as the
 * client id; on http://127.0.0.1, http://[::1] or http://localhost, the loopback client id,
 * whose redirect URI must name the loopback address (localhost becomes 127.0.0.1, which
 * Herald's default binding serves); null on any other URL (an authorization server fetches
 * client metadata over https only).
 */
export const blueskyClient = (publicUrl: string): { readonly clientId: string; readonly redirectUri: string } | null => {
  if (/^https:\/\//.test(publicUrl)) {
    return { clientId: `${publicUrl.replace(/\/+$/, "")}${blueskyClientMetadataPath}`, redirectUri: redirectUriOf(publicUrl) }
  }
  if (!loopback.test(publicUrl)) return null
  const redirectUri = redirectUriOf(publicUrl.replace(/^http:\/\/localhost(?=[:/]|$)/, "http://127.0.0.1"))
  return { clientId: `http://localhost?redirect_uri=${encodeURIComponent(redirectUri)}&scope=${encodeURIComponent(blueskyOAuthScope)}`, redirectUri }
}

/**
 * The client metadata document served at `blueskyClientMetadataPath`: a public web client (no
 * client secret or key: token_endpoint_auth_method none), DPoP-bound tokens, the authorization
 * code grant with refresh, and Herald's callback as its only redirect URI.
 */
export const blueskyClientMetadata = (publicUrl: string) => ({
  client_id: `${publicUrl.replace(/\/+$/, "")}${blueskyClientMetadataPath}`,
  client_name: "Herald",
  client_uri: publicUrl.replace(/\/+$/, ""),
  application_type: "web",
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  redirect_uris: [redirectUriOf(publicUrl)],
  scope: blueskyOAuthScope,
  token_endpoint_auth_method: "none",
  dpop_bound_access_tokens: true
})
