import {
  AccountTokens,
  type ConnectionRoute,
  type ConnectionMethods,
  makeAccountTokens,
  OAuthProviders,
  type Refresher,
  type RouteAdapters
} from "@herald/core"
import { Aggregator, Bluesky, Facebook, Instagram, Kit, Linkedin, Pinterest, Threads, Tiktok, X, Youtube } from "@herald/publishers"
import { Context, Deferred, Effect, Either, Layer } from "effect"

/**
 * The direct routes this build serves: one entry per platform with a direct publisher. A
 * platform's branch adds its line here (its folder in packages/publishers exports the entry).
 */
export const directRoutes: ReadonlyArray<Kit.DirectRoute> = [
  Bluesky.blueskyDirectRoute,
  Linkedin.linkedinDirectRoute,
  X.xDirectRoute,
  Threads.threadsDirectRoute,
  Tiktok.tiktokDirectRoute,
  Youtube.youtubeDirectRoute,
  Facebook.facebookDirectRoute,
  Instagram.instagramDirectRoute,
  Instagram.instagramFacebookLoginDirectRoute,
  Pinterest.pinterestDirectRoute,
  Aggregator.instagramAggregatorRoute,
  Aggregator.instagramAggregatorLoginRoute
]

/** This build's direct routes with `own` added: one for a (platform, route) this build has replaces it. */
export const directRoutesWith = (own: ReadonlyArray<Kit.DirectRoute>): ReadonlyArray<Kit.DirectRoute> => [
  ...directRoutes.filter((built) =>
    !own.some((mine) => mine.platform === built.platform && (mine.route ?? "direct") === (built.route ?? "direct"))
  ),
  ...own
]

/** The direct routes' adapters, for the registry beside the simulator's. */
export class DirectAdapters extends Context.Tag("@herald/app/DirectAdapters")<DirectAdapters, ReadonlyArray<RouteAdapters>>() {}

/**
 * Builds each direct route from its endpoints (HERALD_<PLATFORM>_* variables): its adapters, how
 * its accounts connect (OAuthProviders; a platform whose OAuth client is unset is listed with the
 * variables to set) and the AccountTokens its publisher reads tokens from, refreshing through the
 * route's own provider.
 */
export const directRoutesLayer = (routes: ReadonlyArray<Kit.DirectRoute>) =>
  Layer.scopedContext(Effect.gen(function*() {
    // AccountTokens refreshes through the providers the routes build, and the routes' publishers
    // read tokens from AccountTokens: the providers are handed over once built.
    const methods = yield* Deferred.make<ConnectionMethods>()
    const refresherOf = (platform: Kit.DirectRoute["platform"], route: ConnectionRoute) =>
      Effect.map(Deferred.await(methods), (built): Refresher | undefined =>
        built.oauth.find((provider) => provider.platform === platform && (provider.route ?? "direct") === route)?.refresh ??
          (route === "direct" ? built.logins.find((login) => login.platform === platform)?.refresh : undefined))
    const tokens = yield* makeAccountTokens(refresherOf)
    const oauth: Array<ConnectionMethods["oauth"][number]> = []
    const logins: Array<ConnectionMethods["logins"][number]> = []
    const keys: Array<NonNullable<ConnectionMethods["keys"]>[number]> = []
    const unconfigured: Array<ConnectionMethods["unconfigured"][number]> = []
    const adapters: Array<RouteAdapters> = []
    for (const route of routes) {
      const endpoints = yield* Kit.platformEndpoints(route.settingsOf ?? route.platform, route.defaults)
      const built = yield* route.build(endpoints).pipe(Effect.provideService(AccountTokens, tokens))
      adapters.push(built.adapters)
      if (built.login !== undefined) logins.push(built.login)
      if (built.keys !== undefined) keys.push(built.keys)
      if (built.oauth !== undefined) {
        const client = Kit.oauthClient(endpoints)
        if (route.oauthUnregistered === true || Either.isRight(client)) oauth.push(built.oauth)
        else unconfigured.push({ platform: route.platform, ...(route.route === undefined ? {} : { route: route.route }), variables: client.left })
      }
    }
    const connection = { oauth, logins, keys, unconfigured }
    yield* Deferred.succeed(methods, connection)
    return Context.make(DirectAdapters, adapters).pipe(
      Context.add(AccountTokens, tokens),
      Context.add(OAuthProviders, OAuthProviders.make(connection))
    )
  }))
