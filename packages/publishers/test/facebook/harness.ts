/**
 * What the Facebook tests run on: the fake on loopback and the kit's direct-route harness over it
 * (Pages connected through Herald's connection flow on the fake's login dialog), media bytes held
 * in memory (Facebook takes the bytes).
 */
import type { SocialAccount } from "@herald/core"
import { facebookRoute } from "../../src/facebook/FacebookRoute.js"
import { graphVersions } from "../../src/meta/GraphVersions.js"
import { shortDeadlines } from "../kit/Deadlines.js"
import { directHarness } from "../kit/DirectHarness.js"
import { FacebookFake, type FacebookFakeOptions } from "./FacebookFake.js"

const clientId = "987654321012345"
const clientSecret = "fake-facebook-app-secret"

/** Media items as the Threads tests make them: a fresh storage key each, bytes given by withBytes. */
export { mediaItem } from "../threads/harness.js"

export const makeHarness = async (fakeOptions: Partial<FacebookFakeOptions> = {}) => {
  const fake = await new FacebookFake({ clientId, clientSecret, version: graphVersions.facebook, chunkBytes: 1000, ...fakeOptions }).start()
  const harness = await directHarness({
    platform: "facebook",
    fake: { url: fake.url, consent: (authorizeUrl) => fake.login.consent(authorizeUrl) },
    client: { id: clientId, secret: clientSecret },
    build: (endpoints) => facebookRoute(endpoints),
    deadlines: shortDeadlines
  })

  /** Herald's connection flow, once: answers every account the project holds on Facebook (one per Page granted). */
  const connect = async (): Promise<ReadonlyArray<SocialAccount>> => {
    await harness.connect()
    return [...harness.data.accounts.values()].filter((account) => account.platform === "facebook")
  }

  const stop = async () => {
    await harness.dispose()
    await fake.stop()
  }

  return { ...harness, fake, connect, stop }
}
