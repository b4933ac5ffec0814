// The packages as npm would ship them: `npm pack` of every publishable workspace, the tarballs
// installed into a project outside the workspace (no workspace link to fall back on), a consumer
// compiled there with TypeScript's defaults (consumer/tsconfig.json) and run with plain node.
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, expect, it } from "vitest"
import { installedVersion, publishable, root, run } from "./Npm.js"

const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "herald-packed-"))
// The consumer's node_modules is a few hundred packages: removed without blocking the worker.
afterAll(() => Fs.promises.rm(scratch, { recursive: true, force: true }), 300_000)

it("npm pack of each publishable package installs into a project of its own, whose TypeScript consumer compiles and creates a post", async () => {
  const names = publishable()
  expect(names).toContain("@herald/app")
  const tarballs = Path.join(scratch, "tarballs")
  Fs.mkdirSync(tarballs)
  // prepack builds what is stale (scripts/build.mjs).
  const packed = JSON.parse(await run("npm", ["pack", "--json", "--pack-destination", tarballs, ...names.flatMap((name) => ["--workspace", name])], root)) as
    ReadonlyArray<{ name: string; filename: string; files: ReadonlyArray<{ path: string }> }>
  expect(packed.map((one) => one.name).sort()).toEqual([...names].sort())
  for (const one of packed) {
    // Compiled output only: no TypeScript sources, no tests.
    expect(one.files.map((file) => file.path).filter((path) => !path.startsWith("dist/") && path !== "package.json" && !path.endsWith(".md"))).toEqual([])
    expect(one.files.some((file) => file.path.endsWith(".ts") && !file.path.endsWith(".d.ts"))).toBe(false)
  }

  const consumer = Path.join(scratch, "consumer")
  Fs.mkdirSync(consumer)
  Fs.writeFileSync(Path.join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
  for (const file of ["consumer.ts", "tsconfig.json"]) {
    Fs.copyFileSync(Path.join(import.meta.dirname, "consumer", file), Path.join(consumer, file))
  }
  // --prefer-offline: the third-party packages come from npm's cache where it has them.
  await run("npm", [
    "install", "--prefer-offline", "--no-audit", "--no-fund",
    ...packed.map((one) => Path.join(tarballs, one.filename)),
    `typescript@${installedVersion("typescript")}`,
    `@types/node@${installedVersion("@types/node")}`
  ], consumer)
  // Installed from the tarballs, not linked to this workspace.
  const installed = Fs.lstatSync(Path.join(consumer, "node_modules", "@herald", "app"))
  expect(installed.isSymbolicLink()).toBe(false)
  expect(Fs.existsSync(Path.join(consumer, "node_modules", "@herald", "app", "src"))).toBe(false)

  await run(Path.join(consumer, "node_modules", ".bin", "tsc"), ["-p", "."], consumer)
  const output = await run(process.execPath, ["consumer.js"], consumer)
  const line = output.split("\n").find((one) => one.startsWith("consumer: "))
  expect(line, output).toBeDefined()
  const result = JSON.parse(line!.slice("consumer: ".length)) as { post: { id: string; status: string }; health: number }
  expect(result.post.status).toBe("draft")
  expect(result.post.id).toMatch(/^[0-9a-f-]{36}$/)
  expect(result.health).toBe(200)
}, 900_000)
