import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import { createServer } from "node:net"
import * as Path from "node:path"
import { promisify } from "node:util"
import { embeddedDataDir } from "@herald/storage-postgres/embedded-snapshot"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { herald as heraldCommand, runCli } from "../src/Cli.js"
import { type HeraldCall, HeraldHttp } from "../src/CliConnection.js"
import { commandPaths } from "../src/CommandTree.js"
import { progressLine } from "../src/ProgressBar.js"
import { capturing } from "./CliCapture.js"
import { sourceCli } from "./HeraldProcess.js"
import { startHerald, tempDataDir, type TestHerald } from "./TestHerald.js"

/** Runs the CLI in this process, capturing what it prints (and, with `http`, what it would send). */
const cli = async (argv: ReadonlyArray<string>, http?: HeraldHttp["Type"]) => {
  const run = runCli(argv)
  const { code, err, out } = await capturing(http === undefined ? run : Effect.provideService(run, HeraldHttp, http))
  // The server runs in this process too: keep only what the CLI printed (one JSON document per call).
  return { code, out: out.filter((entry) => entry.startsWith("{")).join("\n"), all: out.join("\n"), err: err.join("\n") }
}

/** The call an admin command line makes, recorded instead of sent (token and project given). */
const request = async (line: string, project: ReadonlyArray<string> = ["--project", "p1"]) => {
  const calls: Array<HeraldCall> = []
  const result = await cli(["admin", ...line.split(" "), "--token", "t", "--data-dir", "/nonexistent", ...project], (_server, _token, call) =>
    Effect.sync(() => {
      calls.push(call)
      return { status: 200, text: "{}", retryAfter: Option.none() }
    }))
  return { ...result, call: calls[0] }
}

describe("argument parsing", () => {
  it("connects an aggregator account with Ayrshare's keys from the environment, never from the command line", async () => {
    const line = "accounts connect --platform instagram --route aggregator_login --username acme.studio"
    const saved = { api: process.env.HERALD_AYRSHARE_API_KEY, profile: process.env.HERALD_AYRSHARE_PROFILE_KEY }
    try {
      delete process.env.HERALD_AYRSHARE_API_KEY
      delete process.env.HERALD_AYRSHARE_PROFILE_KEY
      const missing = await request(line)
      expect(missing.code).toBe(2)
      expect(missing.err).toContain("HERALD_AYRSHARE_API_KEY")
      process.env.HERALD_AYRSHARE_API_KEY = "ayr-key"
      process.env.HERALD_AYRSHARE_PROFILE_KEY = "ayr-profile"
      expect((await request(line)).call).toEqual({
        method: "POST",
        path: "/admin/v1/projects/p1/accounts",
        body: { platform: "instagram", username: "acme.studio", route: "aggregator_login", api_key: "ayr-key", profile_key: "ayr-profile" }
      })
    } finally {
      if (saved.api === undefined) delete process.env.HERALD_AYRSHARE_API_KEY
      else process.env.HERALD_AYRSHARE_API_KEY = saved.api
      if (saved.profile === undefined) delete process.env.HERALD_AYRSHARE_PROFILE_KEY
      else process.env.HERALD_AYRSHARE_PROFILE_KEY = saved.profile
    }
  })

  it("maps a command line to its admin request", async () => {
    expect((await request("keys create --kind agent --scopes posts:read,posts:write --rate-limit 5000")).call).toEqual({
      method: "POST",
      path: "/admin/v1/projects/p1/keys",
      body: { kind: "agent", scopes: ["posts:read", "posts:write"], rate_limit_per_minute: 5000 }
    })
    expect((await request("projects update --banned-words a,b --tone none", ["--project", "p2"])).call).toMatchObject({
      method: "PATCH",
      path: "/admin/v1/projects/p2",
      body: { guardrails: { banned_words: ["a", "b"], tone: null } }
    })
    expect((await request("keys update k1 --rate-limit 3 --daily-cap none")).call).toEqual({
      method: "PATCH",
      path: "/admin/v1/projects/p1/keys/k1",
      body: { rate_limit_per_minute: 3, daily_post_cap: null }
    })
    expect((await request("webhooks deliveries w1 --limit 20")).call).toMatchObject({
      method: "GET",
      path: "/admin/v1/projects/p1/webhooks/w1/deliveries?limit=20"
    })
    expect((await request("webhooks resend w1 e1")).call).toMatchObject({ method: "POST", path: "/admin/v1/projects/p1/webhooks/w1/deliveries/e1/resend" })
    expect((await request("publishing pause --reason review")).call).toMatchObject({
      method: "POST",
      path: "/admin/v1/projects/p1/publishing/pause",
      body: { reason: "review" }
    })
    expect((await request("publishing resume", ["--project", "p2"])).call).toMatchObject({ method: "POST", path: "/admin/v1/projects/p2/publishing/resume" })
    expect((await request("publishing pause-all", [])).call).toMatchObject({ method: "POST", path: "/admin/v1/publishing/pause", body: {} })
    expect((await request("publishing resume-all", [])).call).toMatchObject({ method: "POST", path: "/admin/v1/publishing/resume" })
    expect((await request("publishing list", [])).call).toMatchObject({ method: "GET", path: "/admin/v1/publishing" })
    expect((await request("webhooks kinds w1 --kinds post.failed,post.rejected")).call).toEqual({
      method: "PATCH",
      path: "/admin/v1/projects/p1/webhooks/w1",
      body: { kinds: ["post.failed", "post.rejected"] }
    })
    expect((await request("projects check-guardrails --caption hello --banned-words a,b")).call).toEqual({
      method: "POST",
      path: "/admin/v1/projects/p1/guardrails/check",
      body: { caption: "hello", guardrails: { banned_words: ["a", "b"] } }
    })
    expect((await request("webhooks test w1")).call).toMatchObject({ method: "POST", path: "/admin/v1/projects/p1/webhooks/w1/test" })
    expect((await request("webhooks rotate-secret w1")).call).toEqual({
      method: "POST",
      path: "/admin/v1/projects/p1/webhooks/w1/rotate-secret",
      body: {}
    })
    expect((await request("webhooks rotate-secret w1 --expires-in 0")).call).toMatchObject({ body: { expires_in_seconds: 0 } })
    expect((await request("webhooks rotate-secret w1 --expires-in=3600")).call).toMatchObject({ body: { expires_in_seconds: 3600 } })
    expect((await request("approval-channels add-email --address dana@example.com")).call).toEqual({
      method: "POST",
      path: "/admin/v1/projects/p1/approval-channels",
      body: { kind: "email", address: "dana@example.com" }
    })
    expect((await request("approval-channels add-chat --url https://hooks.example.com/T/B/x --label #approvals")).call).toMatchObject({
      body: { kind: "chat", url: "https://hooks.example.com/T/B/x", label: "#approvals" }
    })
    expect((await request("approval-channels remove c1")).call).toMatchObject({ method: "DELETE", path: "/admin/v1/projects/p1/approval-channels/c1" })
    expect((await request("approval-channels list")).call).toMatchObject({ method: "GET", path: "/admin/v1/projects/p1/approval-channels" })
  })

  it("takes --flag value and --flag=value alike, and a value that starts with dashes", async () => {
    const spaced = await cli(["admin", "projects", "update", "--signature", "-- Sent via Acme", "--token", "t", "--project", "p1"], recordOnly)
    const joined = await cli(["admin", "projects", "update", "--signature=-- Sent via Acme", "--token=t", "--project=p1"], recordOnly)
    expect(spaced.code).toBe(0)
    expect(joined.code).toBe(0)
    expect(recorded.slice(-2)).toEqual([
      { method: "PATCH", path: "/admin/v1/projects/p1", body: { signature: "-- Sent via Acme" } },
      { method: "PATCH", path: "/admin/v1/projects/p1", body: { signature: "-- Sent via Acme" } }
    ])
  })

  it("refuses unknown commands, unknown options, wrong arity, bad numbers and a missing project with exit 2, sending nothing", async () => {
    const refused = async (line: string, project?: ReadonlyArray<string>) => {
      const result = await request(line, project)
      expect(result.code, line).toBe(2)
      expect(result.call, line).toBeUndefined()
      return result.err
    }
    expect(await refused("keys frobnicate")).toContain("unknown command \"frobnicate\" for herald admin keys; one of: list, create, update, revoke")
    expect(await refused("kes list")).toContain("unknown command \"kes\" for herald admin; one of: projects, keys, accounts, webhooks, approval-channels, publishing")
    expect(await refused("keys list --colour red")).toContain("--colour")
    expect(await refused("keys revoke")).toContain("<key id>")
    expect(await refused("keys create --kind agent --scopes posts:read --rate-limit fast")).toContain("--rate-limit must be a whole number, got \"fast\"")
    expect(await refused("keys list", [])).toContain("which project?")
  })
})

const recorded: Array<HeraldCall> = []
const recordOnly: HeraldHttp["Type"] = (_server, _token, call) =>
  Effect.sync(() => {
    recorded.push(call)
    return { status: 200, text: "{}", retryAfter: Option.none() }
  })

describe("help and version", () => {
  it("--help on every command and sub-command exits 0 and describes it", async () => {
    const paths = commandPaths(heraldCommand)
    // herald, serve, work, migrate, admin (6 groups, 33 commands), import.
    expect(paths.length).toBe(45)
    for (const path of paths) {
      const help = await cli([...path, "--help"])
      expect(help.code, path.join(" ")).toBe(0)
      expect(help.all, path.join(" ")).toContain("USAGE")
      expect(help.all, path.join(" ")).toContain(path.at(-1) ?? "herald")
    }
    const keysCreate = await cli(["admin", "keys", "create", "--help"])
    expect(keysCreate.all).toContain("--scopes")
    expect(keysCreate.all).toContain("--token")
  })

  it("--version prints the package's version; a bare group prints its help", async () => {
    const { version } = JSON.parse(Fs.readFileSync(new URL("../package.json", import.meta.url), "utf8"))
    const printed = await cli(["--version"])
    expect(printed.code).toBe(0)
    expect(printed.all.trim()).toBe(version)
    const admin = await cli(["admin"])
    expect(admin.code).toBe(0)
    expect(admin.all).toContain("publishing")
  })

  it("draws the progress bar", () => {
    expect(progressLine(0, 4, 8)).toBe("[--------]   0% 0/4 rows")
    expect(progressLine(3, 4, 8)).toBe("[######--]  75% 3/4 rows")
    expect(progressLine(4, 4, 8)).toBe("[########] 100% 4/4 rows")
  })
})

describe("herald admin against a running server", () => {
  let herald: TestHerald
  beforeAll(async () => {
    herald = await startHerald()
  })
  afterAll(() => herald.close())

  const flags = () => ["--server", herald.origin, "--data-dir", herald.dataDir]

  it("lists projects and creates a key, reading the token and project from credentials.json", async () => {
    const projects = await cli(["admin", "projects", "list", ...flags()])
    expect(projects.code).toBe(0)
    expect(JSON.parse(projects.out).data[0].id).toBe(herald.credentials.project_id)

    const key = await cli(["admin", "keys", "create", "--kind", "agent", "--scopes", "posts:read", "--rate-limit", "500", ...flags()])
    expect(key.code).toBe(0)
    const created = JSON.parse(key.out)
    expect(created).toMatchObject({ project_id: herald.credentials.project_id, kind: "agent", rate_limit_per_minute: 500 })
    expect(created.key).toMatch(/^hk_agent_/)
  })

  it("text that cannot be stored reaches the admin API's check: exit 1 with the 400 naming the field, nothing created", async () => {
    const before = JSON.parse((await cli(["admin", "projects", "list", ...flags()])).out).data.length
    const nul = await cli(["admin", "projects", "create", "--name", "Acme\u0000", ...flags()])
    expect(nul.code).toBe(1)
    expect(nul.err).toContain("400: invalid request: name: contains a NUL character (U+0000)")
    const surrogate = await cli(["admin", "projects", "update", "--signature", "\ud800 Acme", ...flags()])
    expect(surrogate.code).toBe(1)
    expect(surrogate.err).toContain("400: invalid request: signature: contains an unpaired surrogate (U+D800)")
    const username = await cli(["admin", "accounts", "connect", "--platform", "x", "--username", "a\u0000b", ...flags()])
    expect(username.err).toContain("username: contains a NUL character (U+0000)")
    expect(JSON.parse((await cli(["admin", "projects", "list", ...flags()])).out).data.length).toBe(before)
    const project = JSON.parse((await cli(["admin", "projects", "get", ...flags()])).out)
    expect(project.signature).not.toContain("\ud800")
  })

  it("imports a CSV of any length in batches of 100, with a progress bar and a line per row", async () => {
    const file = Path.join(tempDataDir(), "posts.csv")
    const rows = Array.from({ length: 120 }, (_, index) =>
      index === 109 ? `"",x:herald_demo,2030-01-01T10:00:00Z` : `"Imported, number ${index + 1}",x:herald_demo|bluesky:herald_demo,2030-01-01T10:00:00Z`)
    Fs.writeFileSync(file, ["caption,accounts,scheduled_at", ...rows].join("\n"))
    const progress: Array<string> = []
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => progress.push(String(chunk)) > 0)
    const result = await cli(["import", file, ...flags()]).finally(() => stderr.mockRestore())
    expect(result.code).toBe(1)
    const lines = result.all.split("\n").filter((line) => line.startsWith("line "))
    expect(lines).toHaveLength(120)
    expect(lines[0]).toMatch(/^line 2: created [0-9a-f-]{36} \(scheduled\)$/)
    // The 110th row is on line 111, in the second batch: its message names the field, not the batch's index.
    expect(lines[109]).toMatch(/^line 111: validation_failed: .*caption/)
    expect(lines[109]).not.toContain("rows[")
    expect(result.all).toContain("119 created, 1 failed, 120 rows")
    expect(result.err).toContain("1 of 120 rows failed")
    expect(progress.join("")).toContain("[##############################] 100% 120/120 rows")
    expect(progress.join("")).toContain("100/120 rows")
  }, 60_000)

  it("imports as a project's operator with --project and the admin token (Herald-Project), and refuses --project with --key", async () => {
    const file = Path.join(tempDataDir(), "operator.csv")
    Fs.writeFileSync(file, "caption,accounts,scheduled_at\n\"By the operator\",x:herald_demo,2030-01-01T10:00:00Z\n")
    const result = await cli(["import", file, "--project", herald.credentials.project_id, ...flags()])
    expect(result.code).toBe(0)
    const id = /created ([0-9a-f-]{36})/.exec(result.all)![1]!
    const receipt = await (await herald.call(`/api/v1/post-results?post_id=${id}`, { token: herald.credentials.human_key })).json() as { provenance: { created_by: unknown } }
    expect(receipt.provenance.created_by).toMatchObject({ key_name: "operator", kind: "human" })

    const both = await cli(["import", file, "--project", herald.credentials.project_id, "--key", herald.credentials.human_key, ...flags()])
    expect(both.code).toBe(2)
    expect(both.err).toContain("--project goes with the admin token")
  })

  it("refuses an import file it cannot read as CSV, naming the line, and sends nothing", async () => {
    const file = Path.join(tempDataDir(), "bad.csv")
    Fs.writeFileSync(file, "caption,accounts\n\"never closed,x:herald_demo\n")
    const result = await cli(["import", file, ...flags()])
    expect(result.code).toBe(1)
    expect(result.err).toContain("line 2: a quoted field is never closed")
  })

  it("prints the server's refusal and exits 1; a usage error exits 2", async () => {
    // A platform whose OAuth client is unset, by name; Instagram's Facebook Login without the Facebook app's settings, through the consent flow.
    const refused = await cli(["admin", "accounts", "connect", "--platform", "pinterest", "--username", "a", "--route", "direct", ...flags()])
    expect(refused.code).toBe(1)
    expect(refused.err).toContain("400: pinterest is not configured on this instance")
    const consent = await cli(["admin", "accounts", "connect", "--platform", "instagram", "--route", "facebook_login", ...flags()])
    expect(consent.code).toBe(1)
    expect(consent.err).toContain("400: instagram is not configured on this instance: set HERALD_FACEBOOK_CLIENT_ID")
    const wrongToken = await cli(["admin", "projects", "list", "--token", "hk_admin_" + "B".repeat(43), ...flags()])
    expect(wrongToken.code).toBe(1)
    expect(wrongToken.err).toContain("401")
    const usage = await cli(["admin", "projects", "explode", ...flags()])
    expect(usage.code).toBe(2)
    expect((await cli(["frobnicate"])).code).toBe(2)
  })
})

/**
 * `herald serve` in a process of its own on a port another socket holds, over an initialised
 * database (as a restart finds it: the process gets to the listen without unpacking a new one
 * first). Started with the file, so the process loads and opens its database while the tests in
 * this process run; its test below reads how it ended.
 */
const serveOnTakenPort = async () => {
  const holder = createServer()
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve))
  const port = (holder.address() as { port: number }).port
  const dataDir = embeddedDataDir("herald-cli-")
  try {
    const serve = sourceCli(["serve"])
    const failure = await promisify(execFile)(serve.command, serve.args, {
      cwd: serve.cwd,
      env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", HERALD_DATA_DIR: dataDir, DATABASE_URL: "" }
    }).then(() => null, (error: { code: number; stderr: string }) => error)
    return { port, dataDir, failure }
  } finally {
    holder.close()
  }
}
let servedOnTakenPort: ReturnType<typeof serveOnTakenPort>
beforeAll(() => {
  servedOnTakenPort = serveOnTakenPort()
  // Read by its test; a rejection before then is not unhandled.
  servedOnTakenPort.catch(() => undefined)
})

describe("herald serve on a taken port", () => {
  it("says the address is in use and exits 1, before any credentials are written", async () => {
    const { dataDir, failure, port } = await servedOnTakenPort
    expect(failure?.code).toBe(1)
    expect(failure?.stderr).toContain(`herald: listen EADDRINUSE: address already in use 127.0.0.1:${port}`)
    expect(Fs.existsSync(Path.join(dataDir, "credentials.json"))).toBe(false)
  }, 90_000)
})
