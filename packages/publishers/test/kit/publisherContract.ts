import type { Media, PlatformConfigurations, RouteAdapters, SocialAccount } from "@herald/core"
import type { Effect, Scope } from "effect"

/** A reply the fake gives once, in place of its normal one, to the next call it receives. */
export interface InjectedReply {
  readonly status: number
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
}

/** What the fake holds of one post, as far as the contract compares it. */
export interface FakePost {
  /** The platform's id, as the publisher's receipt carries it (platformPostId). */
  readonly id: string
  readonly text: string | null
  /** The number of media items attached, of any kind. */
  readonly media: number
}

/** The handle a platform's fake gives the contract to break it on purpose and to look inside. */
export interface FakeControls {
  /** The next call (any path except the token endpoint) gets this reply. */
  readonly failNext: (reply: InjectedReply) => void
  /** The next call (any path except the token endpoint) gets no reply at all, after the fake acted on it. */
  readonly hangNext: () => void
  /** The access token in use stops working; the refresh token still works. */
  readonly expireToken: () => void
  /** The access and refresh tokens both stop working: only a reconnect helps. */
  readonly revokeGrant: () => void
  /** The grant loses this scope: calls needing it are refused as the platform refuses them. */
  readonly revokeScope: (scope: string) => void
  /** The scope `revokeScope` takes away to refuse publishing. */
  readonly publishScope: string
  /** The posts the fake holds now. */
  readonly posts: () => ReadonlyArray<FakePost>
  /** How many times the token endpoint issued a token by refresh. */
  readonly refreshes: () => number
}

/** One option the contract lists for the platform, and how to tell the fake got it. */
export interface OptionCase {
  readonly name: string
  readonly configuration: PlatformConfigurations[keyof PlatformConfigurations]
  /** Fails (throws) unless the fake's record of the post shows the option. */
  readonly check: (postId: string) => void
}

/**
 * What a publisher's test gives the contract: its adapters over the production HttpClient
 * (pointed at the fake through the configured base URL), an account connected through the
 * connection flow (never tokens written by hand), the fake's controls, and the media and options
 * to try.
 */
export interface ContractSetup {
  readonly adapters: RouteAdapters
  readonly account: SocialAccount
  readonly fake: FakeControls
  /** One stored media item per kind the route supports. */
  readonly media: { readonly image?: Media; readonly video?: Media; readonly document?: Media; readonly gif?: Media }
  readonly options: ReadonlyArray<OptionCase>
  /** The account as storage holds it now (to see it marked needs_reconnect). */
  readonly reload: Effect.Effect<SocialAccount>
}

/** Builds the setup in a scope (fake servers started, storage opened) that the suite closes at the end. */
export type ContractSetupEffect = Effect.Effect<ContractSetup, unknown, Scope.Scope>
