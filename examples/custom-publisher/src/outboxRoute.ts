import type { Publisher, RouteAdapters } from "@herald/core"
import type { Kit } from "@herald/publishers"
import { Effect, Option } from "effect"

/** A post as the outbox received it. */
export interface OutboxPost {
  readonly id: string
  readonly account: string
  readonly text: string | null
}

/**
 * A publisher of your own for Bluesky's direct route: instead of Bluesky it writes each post to
 * `outbox` (a team feed, a queue, a test double). Accounts connect with a login, as Bluesky's app
 * passwords do; here any password names the outbox account. Plugged in with
 * `createHerald({ routes: [outboxRoute(outbox)] })`, it replaces the built-in Bluesky route.
 */
export const outboxRoute = (outbox: Array<OutboxPost>): Kit.DirectRoute => {
  const publisher: Publisher = {
    publish: (request) =>
      Effect.sync(() => {
        const post = { id: request.marker, account: request.account.username, text: request.text }
        outbox.push(post)
        return { platformPostId: post.id, url: `https://outbox.example/${post.id}`, note: null }
      }),
    // Herald's marker is the delivery id, and so is the outbox's post id: a lost answer is found again.
    reconcile: (request) =>
      Effect.sync(() =>
        Option.map(Option.fromNullable(outbox.find((post) => post.id === request.marker)), (post) => ({
          platformPostId: post.id,
          url: `https://outbox.example/${post.id}`,
          note: null
        }))
      ),
    takedown: (_account, platformPostId) =>
      Effect.sync(() => void outbox.splice(outbox.findIndex((post) => post.id === platformPostId) >>> 0, 1))
  }
  const adapters: RouteAdapters = { platform: "bluesky", route: "direct", publisher, metrics: null, probe: null }
  return {
    platform: "bluesky",
    defaults: { apiBaseUrl: "https://outbox.example", authBaseUrl: "https://outbox.example" },
    build: () =>
      Effect.succeed({
        adapters,
        login: {
          platform: "bluesky",
          login: ({ identifier }) =>
            Effect.succeed({ credentials: {}, expiresAt: null, platformAccountId: `outbox:${identifier}`, username: identifier }),
          refresh: () => Effect.succeed({ credentials: {}, expiresAt: null })
        }
      })
  }
}
