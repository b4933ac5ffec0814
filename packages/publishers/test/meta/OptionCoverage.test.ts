/**
 * Issue 19's rule for Meta's three networks: every platform_configurations key an account's route
 * accepts (optionKeysFor, which GET /posting-rules lists and validation enforces) is sent to the
 * platform by the publisher, proven by a test that reads what the fake received; a key the route
 * cannot carry is absent from that list (and so refused at create: PostValidation.test.ts, "refuses
 * every key GET /posting-rules does not list"). A new option in a platform module fails this test
 * until a publisher test sends it.
 */
import { type ConnectionRoute, commonOptionKeys, optionKeysFor, type Platform } from "@herald/core"
import { describe, expect, it } from "vitest"
import { facebookOptions } from "../facebook/contractSetup.js"
import type { FacebookFake } from "../facebook/FacebookFake.js"
import { facebookLoginOptions, instagramLoginOptions } from "../instagram/contractSetup.js"
import type { InstagramFake } from "../instagram/InstagramFake.js"
import type { OptionCase } from "../kit/publisherContract.js"
import { threadsOptions } from "../threads/contractSetup.js"
import type { ThreadsFake } from "../threads/ThreadsFake.js"

/** The cases are only listed here, never run: their checks, which read the fake, are not called. */
const unused = <Fake>() => null as unknown as Fake

/** The keys the publisherContract sends for a route (its "each option the contract lists reaches the platform"). */
const sentByContract = (cases: ReadonlyArray<OptionCase>) => cases.flatMap((option) => Object.keys(option.configuration ?? {}))

/**
 * Keys sent by a publisher test of its own rather than the contract (they need a kind of post the
 * contract's carrier is not), with where.
 */
const sentElsewhere: Partial<Record<Platform, Record<string, string>>> = {
  instagram: {
    // The same InstagramPosts code builds both logins' containers.
    cover_url: "InstagramPublisher.test.ts, \"a single video is a reel: ... its cover_url\""
  }
}

const routes: ReadonlyArray<{ readonly platform: Platform; readonly route: ConnectionRoute; readonly cases: ReadonlyArray<OptionCase> }> = [
  { platform: "instagram", route: "direct", cases: instagramLoginOptions(unused<InstagramFake>()) },
  { platform: "instagram", route: "facebook_login", cases: facebookLoginOptions(unused<InstagramFake>()) },
  { platform: "facebook", route: "direct", cases: facebookOptions(unused<FacebookFake>()) },
  { platform: "threads", route: "direct", cases: threadsOptions(unused<ThreadsFake>()) }
]

describe("Meta's networks: every option a route accepts reaches the platform", () => {
  for (const { platform, route, cases } of routes) {
    it(`${platform} (${route}): each key GET /posting-rules lists beyond caption and placement is sent by a publisher test, and no other`, () => {
      const listed = optionKeysFor(platform, route).filter((key) => !(commonOptionKeys as ReadonlyArray<string>).includes(key))
      const sent = [...sentByContract(cases), ...Object.keys(sentElsewhere[platform] ?? {})]
      expect([...new Set(sent)].sort()).toEqual([...listed].sort())
    })
  }

  it("Instagram's first comment is absent from both direct logins (the contract gives it to the aggregator routes only)", () => {
    expect(optionKeysFor("instagram", "direct")).not.toContain("first_comment")
    expect(optionKeysFor("instagram", "facebook_login")).not.toContain("first_comment")
    // Branded content rides Facebook Login only.
    expect(optionKeysFor("instagram", "direct")).not.toContain("is_paid_partnership")
    expect(optionKeysFor("instagram", "facebook_login")).toContain("is_paid_partnership")
  })
})
