import { layer } from "@effect/vitest"
import type { Media, PlatformConfigurations, PublishRequest, RouteAdapters, SocialAccount } from "@herald/core"
import { Context, Effect, Layer, Option, type Scope } from "effect"
import { randomUUID } from "node:crypto"
import { describe, expect } from "vitest"

/**
 * A reply the fake gives once, in place of its normal one, to the next call it receives. Without
 * a body, the fake answers the platform's documented error body for the status; a string body is
 * sent as it is (a malformed reply).
 */
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
  /**
   * For the publish whose reply never comes, the route's publisher built again under deadlines
   * (kit/Deadlines.ts) no longer than its answered calls need.
   */
  readonly hungPublisher: RouteAdapters["publisher"]
  readonly account: SocialAccount
  readonly fake: FakeControls
  /** One stored media item per kind the route supports. */
  readonly media: { readonly image?: Media; readonly video?: Media; readonly document?: Media; readonly gif?: Media }
  /**
   * On a platform that publishes no text alone (TikTok, Instagram), the stored item a post that
   * names no media carries; absent where text goes out alone.
   */
  readonly carrier?: Media
  readonly options: ReadonlyArray<OptionCase>
  /** The account as storage holds it now (to see it marked needs_reconnect). */
  readonly reload: Effect.Effect<SocialAccount>
}

/** Builds the setup in a scope (fake servers started, storage opened) that the suite closes at the end. */
export type ContractSetupEffect = Effect.Effect<ContractSetup, unknown, Scope.Scope>

class Setup extends Context.Tag("publisherContract/Setup")<Setup, ContractSetup>() {}

/**
 * The suite every direct publisher runs against its fake, with the route built over the
 * production HttpClient and short deadlines (CallDeadlines), shorter still for the publish whose
 * reply never comes. The cases share one fake and one account, in order: those that break the
 * grant (a revoked permission, a revoked grant) come last.
 */
export const publisherContract = (
  name: string,
  setup: ContractSetupEffect,
  route: {
    /**
     * Why the route has no token to refresh (an aggregator's API keys, which do not expire):
     * the refresh case is skipped, with this reason in its name. Absent: tokens expire and refresh.
     */
    readonly noTokenRefresh?: string
  } = {}
) =>
  layer(Layer.scoped(Setup, setup), { timeout: 60_000 })(`${name}: publisherContract`, (it) => {
    const request = (
      fixture: ContractSetup,
      text: string | null,
      extra: { readonly media?: ReadonlyArray<Media>; readonly configuration?: OptionCase["configuration"] } = {}
    ): PublishRequest => ({
      account: fixture.account,
      text,
      media: extra.media ?? (fixture.carrier === undefined ? [] : [fixture.carrier]),
      configuration: extra.configuration,
      marker: randomUUID()
    })
    const held = (fixture: ContractSetup, id: string) => fixture.fake.posts().find((post) => post.id === id)

    describe("publishing", () => {
      it.effect("a text post (on its carrier, where text cannot go alone) reaches the platform with its exact text", () =>
        Effect.gen(function*() {
          const fixture = yield* Setup
          const text = `Contract text post ${randomUUID().slice(0, 8)}`
          const published = yield* fixture.adapters.publisher.publish(request(fixture, text))
          expect(held(fixture, published.platformPostId)).toMatchObject({ text, media: fixture.carrier === undefined ? 0 : 1 })
          expect(published.url).toMatch(/^https:\/\//)
        }))

      it.effect("each media kind the route supports is attached", () =>
        Effect.gen(function*() {
          const fixture = yield* Setup
          for (const [kind, item] of Object.entries(fixture.media)) {
            if (item === undefined) continue
            const published = yield* fixture.adapters.publisher.publish(request(fixture, `With ${kind}`, { media: [item] }))
            expect(held(fixture, published.platformPostId), kind).toMatchObject({ media: 1 })
          }
        }))

      it.effect("each option the contract lists reaches the platform", () =>
        Effect.gen(function*() {
          const fixture = yield* Setup
          for (const option of fixture.options) {
            const published = yield* fixture.adapters.publisher.publish(request(fixture, `Option ${option.name}`, { configuration: option.configuration }))
            option.check(published.platformPostId)
          }
        }))

      it.effect("a takedown removes the post (where the route has one)", () =>
        Effect.gen(function*() {
          const fixture = yield* Setup
          const takedown = fixture.adapters.publisher.takedown
          if (takedown === undefined) return
          const published = yield* fixture.adapters.publisher.publish(request(fixture, "To be taken down"))
          yield* takedown(fixture.account, published.platformPostId)
          expect(held(fixture, published.platformPostId)).toBeUndefined()
        }))
    })

    describe("failures", () => {
      it.effect("a reply that never comes is OutcomeUnknown, and reconcile finds the post: no double post", () =>
        Effect.gen(function*() {
          const fixture = yield* Setup
          const before = fixture.fake.posts().length
          fixture.fake.hangNext()
          const sent = request(fixture, `Hung ${randomUUID().slice(0, 8)}`)
          const failure = yield* Effect.flip(fixture.hungPublisher.publish(sent))
          // The deadline's failure (the outbound guard's timeout), not a dropped connection's.
          expect(failure).toMatchObject({ _tag: "OutcomeUnknown", detail: expect.stringMatching(/did not answer within \d+ ms$/) })
          expect(fixture.fake.posts().length).toBe(before + 1)
          const reconcile = fixture.adapters.publisher.reconcile
          if (reconcile === undefined) return
          const found = yield* reconcile(sent)
          expect(Option.map(found, (post) => held(fixture, post.platformPostId)?.text)).toEqual(Option.some(sent.text))
          expect(fixture.fake.posts().length).toBe(before + 1)
        }))

      it.effect("a rate limit is rate_limited, retried no sooner than the platform's Retry-After", () =>
        Effect.gen(function*() {
          const fixture = yield* Setup
          fixture.fake.failNext({ status: 429, headers: { "retry-after": "7" } })
          const failure = yield* Effect.flip(fixture.adapters.publisher.publish(request(fixture, "Rate limited")))
          expect(failure).toMatchObject({ _tag: "PublishFailed", transient: true, retryAfterMs: 7000, error: { category: "rate_limited" } })
        }))

      it.effect("a 5xx is transient", () =>
        Effect.gen(function*() {
          const fixture = yield* Setup
          fixture.fake.failNext({ status: 503 })
          const failure = yield* Effect.flip(fixture.adapters.publisher.publish(request(fixture, "Server error")))
          expect(failure).toMatchObject({ _tag: "PublishFailed", transient: true, error: { category: "transient" } })
        }))

      it.effect("a malformed 2xx reply to a publish is OutcomeUnknown (the post may exist)", () =>
        Effect.gen(function*() {
          const fixture = yield* Setup
          fixture.fake.failNext({ status: 200, body: "<html>not the API</html>", headers: { "content-type": "text/html" } })
          const failure = yield* Effect.flip(fixture.adapters.publisher.publish(request(fixture, "Malformed")))
          expect(failure._tag).toBe("OutcomeUnknown")
        }))

      it.effect("metrics and the probe answer for a live post and account", () =>
        Effect.gen(function*() {
          const fixture = yield* Setup
          const published = yield* fixture.adapters.publisher.publish(request(fixture, "Measured"))
          if (fixture.adapters.metrics !== null) {
            const reading = yield* fixture.adapters.metrics.fetch({ account: fixture.account, platformPostId: published.platformPostId })
            expect(["Reported", "Unreportable"]).toContain(reading._tag)
          }
          if (fixture.adapters.probe !== null) {
            expect((yield* fixture.adapters.probe.check(fixture.account))._tag).toBe("Alive")
          }
        }))

      it.effect.skipIf(route.noTokenRefresh !== undefined)(
        `an expired access token is refreshed once and the post goes out${route.noTokenRefresh === undefined ? "" : ` (skipped: ${route.noTokenRefresh})`}`,
        () =>
        Effect.gen(function*() {
          const fixture = yield* Setup
          const before = fixture.fake.refreshes()
          fixture.fake.expireToken()
          const published = yield* fixture.adapters.publisher.publish(request(fixture, "After expiry"))
          expect(held(fixture, published.platformPostId)).toBeDefined()
          expect(fixture.fake.refreshes()).toBe(before + 1)
        }))

      it.effect("a revoked permission is permission_missing, not retried", () =>
        Effect.gen(function*() {
          const fixture = yield* Setup
          fixture.fake.revokeScope(fixture.fake.publishScope)
          const failure = yield* Effect.flip(fixture.adapters.publisher.publish(request(fixture, "No permission")))
          expect(failure).toMatchObject({ _tag: "PublishFailed", transient: false })
          expect(["permission_missing", "auth_expired"]).toContain((failure as { error: { category: string } }).error.category)
        }))

      it.effect("a revoked grant is auth_expired and the account needs a reconnect", () =>
        Effect.gen(function*() {
          const fixture = yield* Setup
          fixture.fake.revokeGrant()
          const failure = yield* Effect.flip(fixture.adapters.publisher.publish(request(fixture, "Revoked")))
          expect(failure).toMatchObject({ _tag: "PublishFailed", transient: false, error: { category: "auth_expired" } })
          expect((yield* fixture.reload).status).toBe("needs_reconnect")
        }))
    })
  })
