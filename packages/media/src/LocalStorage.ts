import { promises as fs } from "node:fs"
import * as Path from "node:path"
import { inSpan, MediaStorage } from "@herald/core"
import { Effect, Layer, Option } from "effect"

/** Moves a file, copying when source and target are on different file systems. */
const move = (from: string, to: string) =>
  fs.rename(from, to).catch((error: NodeJS.ErrnoException) =>
    error.code === "EXDEV" ? fs.copyFile(from, to).then(() => fs.rm(from, { force: true })) : Promise.reject(error)
  )

/**
 * Media bytes under a local directory (by default <data dir>/media), one file per key. Uploads
 * through a ticket come to Herald's attach URL, so there is no direct-upload form.
 */
export const localMediaStorage = (dir: string) =>
  Layer.effect(
    MediaStorage,
    Effect.gen(function*() {
      const root = Path.resolve(dir)
      yield* Effect.promise(() => fs.mkdir(root, { recursive: true, mode: 0o700 }))
      // Keys are built by Herald (media/<project>/<id>); the check keeps a bad one inside the root.
      const pathOf = (key: string) => {
        const path = Path.resolve(root, key)
        if (!path.startsWith(root + Path.sep)) throw new Error(`media key ${JSON.stringify(key)} leaves the media directory`)
        return path
      }
      return MediaStorage.of({
        keep: (key, file) =>
          Effect.promise(async () => {
            const target = pathOf(key)
            await fs.mkdir(Path.dirname(target), { recursive: true, mode: 0o700 })
            await move(file.location, target)
          }).pipe(inSpan("MediaStorage.keep")),
        remove: (key) => Effect.promise(() => fs.rm(pathOf(key), { force: true })).pipe(inSpan("MediaStorage.remove")),
        read: (key) =>
          Effect.promise(() =>
            fs.readFile(pathOf(key)).then(
              (bytes) => Option.some(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)),
              (error: NodeJS.ErrnoException) => error.code === "ENOENT" ? Option.none() : Promise.reject(error)
            )
          ).pipe(inSpan("MediaStorage.read")),
        configured: true,
        uploadForm: () => Effect.succeed(Option.none()),
        takeUpload: () => Effect.succeed(Option.none())
      })
    })
  )
