/**
 * What the LinkedIn tests run on: the fake on loopback and the kit's direct-route harness over it.
 */
import { type Credentials, Media, MediaId, ProjectId, type SocialAccount } from "@herald/core"
import { DateTime } from "effect"
import { randomUUID } from "node:crypto"
import { linkedinRoute, type LinkedinOptions } from "../../src/linkedin/LinkedinRoute.js"
import { shortDeadlines } from "../kit/Deadlines.js"
import { directHarness } from "../kit/DirectHarness.js"
import { type FakeOptions, LinkedinFake } from "./LinkedinFake.js"

const clientId = "86fake0client"
const clientSecret = "fake-secret-value"

/** A small PDF the fake takes as one. */
export const pdfBytes = new TextEncoder().encode("%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n")

export const mediaItem = (kind: "image" | "video" | "document", options: { altText?: string; filename?: string } = {}) =>
  new Media({
    id: MediaId.make(randomUUID()),
    projectId: ProjectId.make(randomUUID()),
    kind,
    mime: kind === "image" ? "image/jpeg" : kind === "video" ? "video/mp4" : "application/pdf",
    bytes: 0,
    filename: options.filename ?? null,
    width: kind === "document" ? null : 1080,
    height: kind === "document" ? null : 1080,
    durationSeconds: kind === "video" ? 5 : null,
    codec: kind === "image" ? "mjpeg" : kind === "video" ? "h264" : null,
    altText: options.altText ?? null,
    peopleTags: [],
    thumbnailTimestampMs: null,
    storageKey: randomUUID(),
    createdAt: DateTime.unsafeMake("2026-11-24T08:00:00Z")
  })

export const makeHarness = async (fakeOptions: Partial<FakeOptions> = {}, routeOptions: LinkedinOptions = {}) => {
  const fake = await new LinkedinFake({ clientId, clientSecret, ...fakeOptions }).start()
  const harness = await directHarness({
    platform: "linkedin",
    fake,
    client: { id: clientId, secret: clientSecret },
    build: (endpoints) => linkedinRoute(endpoints, routeOptions),
    deadlines: shortDeadlines
  })
  const { data } = harness

  /** Herald's connection flow, and the credentials it stored for the account. */
  const connect = async (): Promise<{ readonly account: SocialAccount; readonly credentials: Credentials }> => {
    const account = await harness.connect()
    return { account, credentials: data.credentials.get(account.id)! }
  }

  /** The page the connection flow connected beside the member, by its vanity name (its username). */
  const page = (username: string): SocialAccount => {
    const found = [...data.accounts.values()].find((account) => account.platform === "linkedin" && account.username === username)
    if (found === undefined) throw new Error(`no LinkedIn page ${username} connected`)
    return found
  }

  const stop = async () => {
    await harness.dispose()
    await fake.stop()
  }

  return { fake, route: harness.route, data, connect, page, withBytes: harness.withBytes, routeWithin: harness.routeWithin, stop, status: (account: SocialAccount) => data.accounts.get(account.id)?.status }
}
