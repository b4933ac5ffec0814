import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { adminRequest } from "../src/AdminCli.js"
import { parseArgs } from "../src/CliArgs.js"
import { runCli } from "../src/Cli.js"
import { startHerald, type TestHerald } from "./TestHerald.js"

/** Runs the CLI in this process, capturing what it prints. */
const cli = async (argv: ReadonlyArray<string>) => {
  const out: Array<string> = []
  const err: Array<string> = []
  const log = vi.spyOn(console, "log").mockImplementation((...args) => void out.push(args.join(" ")))
  const error = vi.spyOn(console, "error").mockImplementation((...args) => void err.push(args.join(" ")))
  try {
    const code = await Effect.runPromise(runCli(argv))
    // The server runs in this process too: keep only what the CLI printed (one JSON document per call).
    return { code, out: out.filter((entry) => entry.startsWith("{")).join("\n"), err: err.join("\n") }
  } finally {
    log.mockRestore()
    error.mockRestore()
  }
}

describe("argument parsing", () => {
  const request = (line: string, project = Option.some("p1")) =>
    parseArgs(line.split(" ")).pipe((parsed) => parsed._tag === "Left" ? parsed : adminRequest(parsed.right, project))

  it("maps a command line to its admin request", () => {
    expect(request("keys create --kind agent --scopes posts:read,posts:write --rate-limit 5000")).toMatchObject({
      _tag: "Right",
      right: {
        method: "POST",
        path: "/projects/p1/keys",
        body: { kind: "agent", scopes: ["posts:read", "posts:write"], rate_limit_per_minute: 5000 }
      }
    })
    expect(request("projects update --project p2 --banned-words a,b --tone none")).toMatchObject({
      right: { method: "PATCH", path: "/projects/p2", body: { guardrails: { banned_words: ["a", "b"], tone: null } } }
    })
    expect(request("keys update k1 --rate-limit 3 --daily-cap none")).toMatchObject({
      right: { method: "PATCH", path: "/projects/p1/keys/k1", body: { rate_limit_per_minute: 3, daily_post_cap: null } }
    })
    expect(request("webhooks deliveries w1 --limit 20")).toMatchObject({
      right: { method: "GET", path: "/projects/p1/webhooks/w1/deliveries?limit=20" }
    })
    expect(request("webhooks resend w1 e1")).toMatchObject({
      right: { method: "POST", path: "/projects/p1/webhooks/w1/deliveries/e1/resend" }
    })
    expect(request("webhooks kinds w1 --kinds post.failed,post.rejected")).toMatchObject({
      right: { method: "PATCH", path: "/projects/p1/webhooks/w1", body: { kinds: ["post.failed", "post.rejected"] } }
    })
    expect(request("projects check-guardrails --caption hello --banned-words a,b")).toMatchObject({
      right: { method: "POST", path: "/projects/p1/guardrails/check", body: { caption: "hello", guardrails: { banned_words: ["a", "b"] } } }
    })
    expect(request("webhooks test w1")).toMatchObject({ right: { method: "POST", path: "/projects/p1/webhooks/w1/test" } })
    expect(request("approval-channels add-email --address dana@example.com")).toMatchObject({
      right: { method: "POST", path: "/projects/p1/approval-channels", body: { kind: "email", address: "dana@example.com" } }
    })
    expect(request("approval-channels add-chat --url https://hooks.example.com/T/B/x --label #approvals")).toMatchObject({
      right: { body: { kind: "chat", url: "https://hooks.example.com/T/B/x", label: "#approvals" } }
    })
    expect(request("approval-channels remove c1")).toMatchObject({ right: { method: "DELETE", path: "/projects/p1/approval-channels/c1" } })
    expect(request("approval-channels list")).toMatchObject({ right: { method: "GET", path: "/projects/p1/approval-channels" } })
    expect(request("publishing pause --reason review")).toMatchObject({
      right: { method: "POST", path: "/projects/p1/publishing/pause", body: { reason: "review" } }
    })
    expect(request("publishing resume --project p2")).toMatchObject({ right: { method: "POST", path: "/projects/p2/publishing/resume" } })
    expect(request("publishing pause-all", Option.none())).toMatchObject({ right: { method: "POST", path: "/publishing/pause", body: {} } })
    expect(request("publishing resume-all", Option.none())).toMatchObject({ right: { method: "POST", path: "/publishing/resume" } })
    expect(request("publishing list", Option.none())).toMatchObject({ right: { method: "GET", path: "/publishing" } })
  })

  it("refuses unknown commands, unknown options, wrong arity, bad numbers and a missing project", () => {
    expect(request("keys frobnicate")).toMatchObject({ _tag: "Left", left: expect.stringContaining("unknown admin command") })
    expect(request("keys list --colour red")).toMatchObject({ left: expect.stringContaining("unknown option --colour") })
    expect(request("keys revoke")).toMatchObject({ left: expect.stringContaining("<key id>") })
    expect(request("keys create --kind agent --scopes posts:read --rate-limit fast")).toMatchObject({
      left: expect.stringContaining("--rate-limit must be a whole number")
    })
    expect(request("keys list", Option.none())).toMatchObject({ left: expect.stringContaining("which project?") })
    expect(parseArgs(["--name=a", "--name=b"])).toMatchObject({ _tag: "Left" })
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
