import {
  AccountId,
  Media,
  MediaId,
  type Platform,
  type PlatformConfigurations,
  ProjectId,
  Publishers,
  SocialAccount
} from "@herald/core"
import { DateTime, Effect } from "effect"
import { randomUUID } from "node:crypto"

const projectId = ProjectId.make(randomUUID())

export const account = (platform: Platform, username = `acme_${platform}`, route: SocialAccount["route"] = "simulator") =>
  new SocialAccount({ id: AccountId.make(randomUUID()), projectId, platform, username, route, status: "active" })

export const media = (kind: "image" | "video", durationSeconds: number | null = null) =>
  new Media({
    id: MediaId.make(randomUUID()),
    projectId,
    kind,
    mime: kind === "image" ? "image/jpeg" : "video/mp4",
    bytes: 1000,
    filename: null,
    width: 1080,
    height: 1080,
    durationSeconds,
    codec: kind === "image" ? "mjpeg" : "h264",
    altText: null,
    peopleTags: [],
    thumbnailTimestampMs: null,
    storageKey: "k",
    createdAt: DateTime.unsafeMake("2030-01-01T00:00:00Z")
  })

export const request = (
  target: SocialAccount,
  text: string | null,
  options: { media?: ReadonlyArray<Media>; configuration?: PlatformConfigurations[Platform] } = {}
) => ({ account: target, text, media: options.media ?? [], configuration: options.configuration, marker: randomUUID() })

export const publisherFor = (target: SocialAccount) => Effect.map(Publishers, (publishers) => publishers.forAccount(target))
