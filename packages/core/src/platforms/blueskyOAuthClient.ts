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

const loopback = /^http:\/\/(127\.0\.0\.1|\[::1\])(:\d+)?(\/|$)/

/** Herald's redirect URI for Bluesky under `publicUrl`. */
const redirectUriOf = (publicUrl: string) => `${publicUrl.replace(/\/+$/, "")}${oauthCallbackPath("bluesky")}`

/**
 * Herald's client id for `publicUrl`: its metadata document's URL on https, the loopback client
 * id on http://127.0.0.1 or http://[::1]; null on any other URL (an authorization server fetches
 * client metadata over https only).
 */
export const blueskyClientId = (publicUrl: string): string | null => {
  if (/^https:\/\//.test(publicUrl)) return `${publicUrl.replace(/\/+$/, "")}${blueskyClientMetadataPath}`
  if (loopback.test(publicUrl)) {
    return `http://localhost?redirect_uri=${encodeURIComponent(redirectUriOf(publicUrl))}&scope=${encodeURIComponent(blueskyOAuthScope)}`
  }
  return null
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
