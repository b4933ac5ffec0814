import { describe, expect, it } from "@effect/vitest"
import type { Platform, PlatformConfigurations } from "@herald/core"
import { SimulatorNetwork } from "../src/index.js"
import { account, media, request } from "./fixtures.js"

const hour = 3_600_000
const wednesdayAfternoon = Date.parse("2030-01-16T15:00:00Z")
const sundayNight = Date.parse("2030-01-13T03:00:00Z")

type Counts = Record<"views" | "likes" | "comments" | "shares" | "reach" | "saves", number | null>

/** Posts `count` posts at `atMs` and reads each one's metrics `ageMs` later. */
const engagement = (
  network: SimulatorNetwork,
  platform: Platform,
  atMs: number,
  ageMs: number,
  options: { count?: number; configuration?: PlatformConfigurations[Platform]; video?: boolean } = {}
) =>
  Array.from({ length: options.count ?? 1 }, () => {
    const sent = request(account(platform), "numbers", {
      media: [options.video === true ? media("video", 20) : media("image")],
      configuration: options.configuration
    })
    const published = network.publish({ ...sent, configuration: sent.configuration ?? null }, atMs)
    expect(published.status).toBe(201)
    const id = (published.body as { id: string }).id
    return { id, counts: network.metrics(platform, id, atMs + ageMs).body as Counts }
  })

const mean = (rows: ReadonlyArray<{ counts: Counts }>, metric: keyof Counts) => rows.reduce((sum, row) => sum + row.counts[metric]!, 0) / rows.length

describe("the simulator's engagement", () => {
  it("grows with the post's age and is the same for the same post at the same age", () => {
    const network = new SimulatorNetwork()
    const [{ id }] = engagement(network, "instagram", wednesdayAfternoon, 0)
    const at = (ageMs: number) => network.metrics("instagram", id!, wednesdayAfternoon + ageMs).body as Counts
    expect(at(0).views).toBeGreaterThan(0)
    expect(at(hour).views!).toBeLessThan(at(24 * hour).views!)
    expect(at(24 * hour).views!).toBeLessThan(at(72 * hour).views!)
    expect(at(5 * hour)).toEqual(at(5 * hour))
  })

  it("depends on the platform, the format, the weekday and the hour it went out", () => {
    const network = new SimulatorNetwork()
    const age = 12 * hour
    const tiktok = engagement(network, "tiktok", wednesdayAfternoon, age, { count: 20, video: true })
    const bluesky = engagement(network, "bluesky", wednesdayAfternoon, age, { count: 20 })
    expect(mean(tiktok, "likes")).toBeGreaterThan(2 * mean(bluesky, "likes"))
    const reels = engagement(network, "instagram", wednesdayAfternoon, age, { count: 30, video: true, configuration: { placement: "reels" } })
    const feed = engagement(network, "instagram", wednesdayAfternoon, age, { count: 30 })
    expect(mean(reels, "views")).toBeGreaterThan(1.3 * mean(feed, "views"))
    const quiet = engagement(network, "instagram", sundayNight, age, { count: 30 })
    expect(mean(feed, "views")).toBeGreaterThan(2 * mean(quiet, "views"))
  })

  it("reports nothing on stories (400 metrics_unsupported), and a null where the platform reports nothing", () => {
    const network = new SimulatorNetwork()
    const story = request(account("instagram"), null, { media: [media("image")], configuration: { placement: "stories" } })
    const published = network.publish({ ...story, configuration: story.configuration ?? null }, wednesdayAfternoon)
    const answer = network.metrics("instagram", (published.body as { id: string }).id, wednesdayAfternoon + hour)
    expect(answer).toMatchObject({ status: 400, body: { error: { code: "metrics_unsupported" } } })
    const [x] = engagement(network, "x", wednesdayAfternoon, hour)
    expect(x!.counts.saves).toBeNull()
    expect(x!.counts.views).toBeGreaterThan(0)
  })
})
