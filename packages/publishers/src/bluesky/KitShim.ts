/**
 * TEMPORARY: the shapes KIT-SPEC agrees for the shared kit (h18-kit), written here until that
 * branch lands; replaced by the kit's own on merge.
 */
import { Context, type DateTime, type Effect, type Redacted } from "effect"
import type { Credentials, Media, Platform, PlatformCallFailed, SocialAccount } from "@herald/core"

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
export interface PasswordLogin {
  readonly platform: Platform
  readonly login: (request: { identifier: string; password: Redacted.Redacted<string> }) => Effect.Effect<TokenGrant & PlatformIdentity, PlatformCallFailed>
  readonly refresh: (credentials: Credentials) => Effect.Effect<TokenGrant, PlatformCallFailed>
}

export interface PlatformEndpoints {
  readonly apiBaseUrl: string
}

/** The stored bytes of a media item, for uploading it to a platform. */
export class MediaBytes extends Context.Tag("@herald/core/MediaBytes")<MediaBytes, {
  readonly read: (media: Media) => Effect.Effect<Uint8Array, MediaUnreadable>
}>() {}

export interface MediaUnreadable {
  readonly _tag: "MediaUnreadable"
  readonly detail: string
}
