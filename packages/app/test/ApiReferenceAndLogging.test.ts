import { ConfigProvider, Effect, LogLevel } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loggingLayer, logSettings } from "../src/Logging.js"
import { json, startHerald, type TestHerald } from "./TestHerald.js"

let herald: TestHerald

beforeAll(async () => {
  herald = await startHerald({ workers: false })
}, 60_000)

afterAll(() => herald?.close())

describe("GET /docs", () => {
  it("answers the API reference page over the served OpenAPI document, referencing no outside asset", async () => {
    const reply = await fetch(`${herald.origin}/docs`)
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toContain("text/html")
    const html = await reply.text()
    // The document is the one GET /api/v1/openapi.json serves.
    const spec = await json(await fetch(`${herald.origin}/api/v1/openapi.json`))
    expect(html).toContain(JSON.stringify(spec.info.title).slice(1, -1))
    expect(html).toContain("/api/v1/posts")
    // Scalar's script itself is in the page (made on the first request, from a module loaded then).
    expect(html.length).toBeGreaterThan(1_000_000)
    // Every script is inline, and no tag loads anything from elsewhere.
    const tags = [...html.matchAll(/<(script|link|img|iframe)\b[^>]*>/gi)].map((match) => match[0])
    expect(tags.length).toBeGreaterThan(0)
    for (const tag of tags) expect(tag).not.toMatch(/\b(src|href)\s*=/i)
    // Scalar's fonts would come from its servers: asked for none.
    expect(html).toContain("\"withDefaultFonts\":false")
  })
})

describe("log settings", () => {
  const read = (entries: ReadonlyArray<readonly [string, string]>) =>
    Effect.runPromise(logSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(entries)))))

  it("reads the level and the format, JSON when asked (and by default off a terminal)", async () => {
    expect(await read([["HERALD_LOG_LEVEL", "debug"], ["HERALD_LOG_FORMAT", "pretty"]])).toEqual({ level: LogLevel.Debug, format: "pretty" })
    expect((await read([])).level).toEqual(LogLevel.Info)
    expect((await read([])).format).toBe(process.stdout.isTTY ? "pretty" : "json")
    await expect(read([["HERALD_LOG_LEVEL", "loud"]])).rejects.toThrow(/HERALD_LOG_LEVEL/)
    await expect(read([["HERALD_LOG_FORMAT", "xml"]])).rejects.toThrow(/HERALD_LOG_FORMAT/)
  })

  it("writes one JSON object a line at the configured level", async () => {
    const written: Array<string> = []
    const program = Effect.all([
      Effect.logDebug("hidden"),
      Effect.logInfo("shown").pipe(Effect.annotateLogs({ request_id: "r-1" }))
    ]).pipe(Effect.provide(loggingLayer({ level: LogLevel.Info, format: "json" })))
    // The logger writes through Effect's Console: one that keeps the lines in place of stdout.
    await Effect.runPromise(Effect.flatMap(Effect.console, (base) =>
      Effect.withConsole(program, { ...base, unsafe: { ...base.unsafe, log: (line: unknown) => void written.push(String(line)) } })))
    expect(written).toHaveLength(1)
    expect(JSON.parse(written[0]!)).toMatchObject({ message: "shown", logLevel: "INFO", annotations: { request_id: "r-1" } })
  })
})
