/**
 * TEMPORARY: the shapes KIT-SPEC agrees for the shared kit (h18-kit), written here until that
 * branch lands; replaced by the kit's own on merge.
 */
import type { Credentials, Media, Platform, PlatformCallFailed, SocialAccount } from "@herald/core"
import { Context, type DateTime, type Effect, type Redacted } from "effect"

export class AccountTokens extends Context.Tag("@herald/core/AccountTokens")<AccountTokens, {
  readonly current: (account: SocialAccount) => Effect.Effect<Credentials, PlatformCallFailed>
  readonly afterRefusal: (account: SocialAccount, refused: Credentials) => Effect.Effect<Credentials, PlatformCallFailed>
}>() {}

export interface TokenGrant {
  readonly credentials: Credentials
  readonly expiresAt: DateTime.Utc | null
}
export interface PlatformIdentity {
  readonly platformAccountId: string
  readonly username: string
}
export interface OAuthProvider {
  readonly platform: Platform
  readonly authorizeUrl: (request: { state: string; codeChallenge: string; redirectUri: string }) => string
  readonly exchange: (request: { code: string; codeVerifier: string; redirectUri: string }) => Effect.Effect<TokenGrant, PlatformCallFailed>
  readonly refresh: (credentials: Credentials) => Effect.Effect<TokenGrant, PlatformCallFailed>
  readonly identify: (credentials: Credentials) => Effect.Effect<PlatformIdentity, PlatformCallFailed>
}

export interface PlatformEndpoints {
  readonly apiBaseUrl: string
  readonly authBaseUrl?: string
  readonly clientId?: string
  readonly clientSecret?: Redacted.Redacted<string>
}

/** The stored bytes of a media item, for uploading it to a platform. */
export class MediaBytes extends Context.Tag("@herald/core/MediaBytes")<MediaBytes, {
  readonly read: (media: Media) => Effect.Effect<Uint8Array, MediaUnreadable>
}>() {}

export interface MediaUnreadable {
  readonly _tag: "MediaUnreadable"
  readonly detail: string
}
