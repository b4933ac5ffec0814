/**
 * What the Instagram tests run on: the fake on loopback, Instagram Login's route (or, with
 * `login: "facebook"`, the Facebook Login route over the fake's graph.facebook.com) built against it
 * through the production HTTP client over the outbound guard, accounts connected through
 * Herald's connection flow on the fake's consent page (tokens kept and refreshed by Herald's
 * AccountTokens) over the in-memory stores, and media served to the fake at public URLs by a
 * small loopback host (Instagram downloads media; it takes no bytes).
 */
import type { InstagramConfiguration, Media, PublishRequest, SocialAccount } from "@herald/core"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { instagramFacebookLoginRoute } from "../../src/instagram/InstagramFacebookLoginRoute.js"
import { instagramLoginRoute } from "../../src/instagram/InstagramLoginRoute.js"
import type { Deadlines } from "../../src/kit/index.js"
import { shortDeadlines } from "../kit/Deadlines.js"
import { directHarness } from "../kit/DirectHarness.js"
import { startMediaHost } from "../threads/harness.js"
import { InstagramFake, type InstagramFakeOptions } from "./InstagramFake.js"

export { mediaItem } from "../threads/harness.js"

const clientId = "9876543210987654"
const clientSecret = "fake-instagram-app-secret"

/** A JPEG's first bytes: Instagram takes JPEG images only. */
export const jpeg = new Uint8Array([255, 216, 255, 224, 0, 16, 74, 70, 73, 70])
export const mp4 = Uint8Array.from({ length: 2500 }, (_, i) => i % 251)

export const makeHarness = async (fakeOptions: Partial<InstagramFakeOptions> = {}, deadlines: Deadlines = shortDeadlines) => {
  const fake = await new InstagramFake({ clientId, clientSecret, ...fakeOptions }).start()
  const bytes = new Map<string, Uint8Array>()
  const host = await startMediaHost(bytes)
  const harness = await directHarness({
    platform: "instagram",
    fake,
    client: { id: clientId, secret: clientSecret },
    build: fakeOptions.login === "facebook" ? (endpoints) => instagramFacebookLoginRoute(endpoints) : instagramLoginRoute,
    deadlines,
    // What a bucket's presigned GET is in production: a URL Instagram downloads the bytes from.
    publicUrl: (key) => `${host.url}/media/${key}`,
    bytes
  })

  const stop = async () => {
    await harness.dispose()
    await host.stop()
    await fake.stop()
  }

  /** The public URL the storage hands out for a stored item. */
  const publicUrlOf = (media: Media) => `${host.url}/media/${media.storageKey}`

  return { fake, route: harness.route, data: harness.data, runtime: harness.runtime, connect: harness.connect, withBytes: harness.withBytes, routeWithin: harness.routeWithin, publicUrlOf, stop }
}

type Harness = Awaited<ReturnType<typeof makeHarness>>

/** Runs `body` on a harness with an account connected, stopped at the end. */
export const withHarness = <A, E>(
  options: Partial<InstagramFakeOptions>,
  body: (harness: Harness, account: SocialAccount) => Effect.Effect<A, E>,
  deadlines: Deadlines = shortDeadlines
) =>
  Effect.scoped(Effect.gen(function*() {
    const harness = yield* Effect.acquireRelease(Effect.promise(() => makeHarness(options, deadlines)), (opened) => Effect.promise(() => opened.stop()))
    const account = yield* Effect.promise(() => harness.connect())
    return yield* body(harness, account)
  }))

/** A delivery to the account, under a fresh marker. */
export const publishRequest = (
  account: SocialAccount,
  text: string | null,
  media: PublishRequest["media"],
  configuration: typeof InstagramConfiguration.Type | undefined = undefined
): PublishRequest => ({ account, text, media, configuration, marker: randomUUID() })
