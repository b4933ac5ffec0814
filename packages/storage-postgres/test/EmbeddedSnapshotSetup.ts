// vitest globalSetup: the initialised embedded database that EmbeddedSnapshot.ts copies, made once
// a run. It runs outside the test workers, where "vitest" itself cannot be imported.
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { TestProject } from "vitest/node"
import { PgLiteServer } from "../src/index.js"
import type {} from "./EmbeddedSnapshot.js"

export const setup = async ({ provide }: TestProject) => {
  const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-snapshot-"))
  await Effect.runPromise(Effect.scoped(Layer.build(PgLiteServer.layer({ dataDir }))))
  provide("embeddedSnapshot", dataDir)
  return () => Fs.rmSync(dataDir, { recursive: true, force: true })
}
