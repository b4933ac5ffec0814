import { describe, expect, it } from "@effect/vitest"
import { MediaStaging, MediaStorage } from "@herald/core"
import { Effect, Layer, Option, Redacted } from "effect"
import { s3MediaStorage } from "../src/S3Storage.js"

// Presigning is local (no call to the bucket), so the URL a platform downloads from can be checked offline.
const staging = Layer.succeed(MediaStaging, MediaStaging.of({
  stage: () => Effect.dieMessage("not staged in this test"),
  fetch: () => Effect.dieMessage("not fetched in this test")
}))

const bucket = s3MediaStorage({
  bucket: "herald-media",
  region: "eu-west-1",
  endpoint: "https://s3.example.com",
  forcePathStyle: true,
  credentials: { accessKeyId: "AKIAHERALDTEST", secretAccessKey: Redacted.make("test-secret-key") }
}).pipe(Layer.provide(staging))

describe("a bucket's public URL of a stored item", () => {
  it.scoped("is a presigned GET of the object, good for an hour, with no secret in it", () =>
    Effect.gen(function*() {
      const storage = yield* MediaStorage
      const url = new URL(Option.getOrThrow(yield* storage.publicUrl!("projects/p1/media/m1")))
      expect(`${url.origin}${url.pathname}`).toBe("https://s3.example.com/herald-media/projects/p1/media/m1")
      expect(url.searchParams.get("X-Amz-Expires")).toBe("3600")
      expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^AKIAHERALDTEST\/\d{8}\/eu-west-1\/s3\/aws4_request$/)
      expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/)
      expect(url.toString()).not.toContain("test-secret-key")
    }).pipe(Effect.provide(bucket)))
})
