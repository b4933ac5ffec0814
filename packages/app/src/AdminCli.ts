import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { type CliFailure, countOption, list, countOrNoneOption, listOption, presentFields, textOption, usageError } from "./CliArgs.js"
import { group } from "./CommandTree.js"
import { connect, connectionOptions, projectOption, refusal, replyBody, tokenOption } from "./CliConnection.js"

/** One admin API call the CLI makes (path under /admin/v1). */
export interface AdminRequest {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE"
  readonly path: string
  readonly body?: Record<string, unknown>
}

type Project = Effect.Effect<string, CliFailure>

/**
 * `herald admin <resource> <action>`: parses its own options and arguments, plus the connection
 * options every admin command takes (anywhere on the line), builds its request and prints the
 * reply as JSON.
 */
const adminCommand = <const Name extends string, const Config extends Command.Command.Config>(
  name: Name,
  description: string,
  config: Config,
  request: (input: Command.Command.ParseConfig<Config>, project: Project) => Effect.Effect<AdminRequest, CliFailure>
) =>
  Command.make(name, { own: config, connection: connectionOptions, project: projectOption, token: tokenOption }, (input) =>
    Effect.gen(function*() {
      const connection = yield* connect({ ...input.connection, project: input.project }, {
        option: input.token,
        env: "HERALD_ADMIN_TOKEN",
        credential: "admin_token",
        flag: "--token"
      })
      const call = yield* request(input.own as Command.Command.ParseConfig<Config>, connection.project)
      const reply = yield* connection.send({ ...call, path: `/admin/v1${call.path}` })
      if (reply.status >= 400) return yield* Effect.fail(refusal(reply))
      yield* Console.log(JSON.stringify(replyBody(reply), null, 2))
    })).pipe(Command.withDescription(description))

const inProject = (project: Project, path: (project: string) => string, method: AdminRequest["method"] = "GET", body?: Record<string, unknown>) =>
  Effect.map(project, (p): AdminRequest => ({ method, path: path(encodeURIComponent(p)), ...(body === undefined ? {} : { body }) }))

const segment = encodeURIComponent

// ---------------------------------------------------------------------------------------------
// projects
// ---------------------------------------------------------------------------------------------

const projectOptions = {
  name: textOption("name", "the project's name"),
  timezone: textOption("timezone", "an IANA zone such as Europe/Paris (default UTC)"),
  approval: Options.choice("approval", ["copilot", "autopilot"]).pipe(
    Options.withDescription("copilot holds agents' posts for a human (the default); autopilot publishes them"),
    Options.optional
  ),
  signature: textOption("signature", "text appended to every caption"),
  plan: Options.choice("plan", ["active", "inactive"]).pipe(Options.withDescription("an inactive plan refuses new posts"), Options.optional)
}

const guardrailOptions = {
  banned_words: listOption("banned-words", "comma-separated words no caption may contain"),
  banned_topics: listOption("banned-topics", "comma-separated topics the classifier refuses"),
  tone: textOption("tone", "the tone captions must keep; none clears it").pipe(Options.map(Option.map((tone) => tone === "none" ? null : tone))),
  daily_post_cap: countOrNoneOption("project-daily-cap", "posts a day for the project's keys without a cap of their own")
}

/** The project fields given, guardrails nested as the API takes them. */
const projectBody = (input: { readonly project: Parameters<typeof presentFields>[0]; readonly guardrails: Parameters<typeof presentFields>[0] }) => {
  const guardrails = presentFields(input.guardrails)
  return { ...presentFields(input.project), ...(Object.keys(guardrails).length === 0 ? {} : { guardrails }) }
}

const projects = group("projects", "Projects: each has its own keys, accounts, guardrails and webhooks.", [
    adminCommand("list", "List the projects.", {}, () => Effect.succeed({ method: "GET", path: "/projects" })),
    adminCommand("get", "Show a project.", {}, (_, project) => inProject(project, (p) => `/projects/${p}`)),
    adminCommand(
      "create",
      "Create a project.",
      { project: { ...projectOptions, name: Options.text("name").pipe(Options.withDescription("the project's name")) }, guardrails: guardrailOptions },
      (input) =>
        Effect.succeed({ method: "POST", path: "/projects", body: projectBody({ ...input, project: { ...input.project, name: Option.some(input.project.name) } }) })
    ),
    adminCommand(
      "update",
      "Change a project's settings; guardrail rules not named keep their value.",
      { project: projectOptions, guardrails: guardrailOptions },
      (input, project) => inProject(project, (p) => `/projects/${p}`, "PATCH", projectBody(input))
    ),
    adminCommand(
      "check-guardrails",
      "A dry run of the guardrails on a caption; the rule options try rules before saving them.",
      { caption: Options.text("caption").pipe(Options.withDescription("the text to check")), guardrails: guardrailOptions },
      ({ caption, guardrails }, project) =>
        inProject(project, (p) => `/projects/${p}/guardrails/check`, "POST", projectBody({ project: { caption: Option.some(caption) }, guardrails }))
    )
])

// ---------------------------------------------------------------------------------------------
// keys
// ---------------------------------------------------------------------------------------------

const keyLimitOptions = {
  rate_limit_per_minute: countOption("rate-limit", "requests a minute (default 60)"),
  daily_post_cap: countOrNoneOption("daily-cap", "posts a day (default: the project's cap)")
}

const keyId = Args.text({ name: "key id" }).pipe(Args.withDescription("the key's id (keys list shows it)"))

const keys = group("keys", "API keys: agent or human, with scopes, a rate limit and an optional daily cap.", [
    adminCommand("list", "List a project's keys (never their secrets).", {}, (_, project) => inProject(project, (p) => `/projects/${p}/keys`)),
    adminCommand(
      "create",
      "Create a key; the reply shows its secret once.",
      {
        kind: Options.choice("kind", ["agent", "human"]).pipe(Options.withDescription("fixed for the key's life")),
        scopes: Options.text("scopes").pipe(Options.withDescription("posts:read,posts:write[,posts:approve]")),
        name: textOption("name", "a name to recognise the key by"),
        ...keyLimitOptions
      },
      ({ kind, scopes, ...rest }, project) =>
        inProject(project, (p) => `/projects/${p}/keys`, "POST", {
          kind,
          scopes: scopes.split(",").map((scope) => scope.trim()).filter((scope) => scope !== ""),
          ...presentFields(rest)
        })
    ),
    adminCommand(
      "update",
      "Change a key's rate limit or daily cap; applies from its next request.",
      { key: keyId, ...keyLimitOptions },
      ({ key, ...limits }, project) => inProject(project, (p) => `/projects/${p}/keys/${segment(key)}`, "PATCH", presentFields(limits))
    ),
    adminCommand(
      "revoke",
      "Revoke a key: it answers 401 from then on.",
      { key: keyId },
      ({ key }, project) => inProject(project, (p) => `/projects/${p}/keys/${segment(key)}/revoke`, "POST")
    )
])

// ---------------------------------------------------------------------------------------------
// accounts
// ---------------------------------------------------------------------------------------------

const accountId = Args.text({ name: "account id" }).pipe(Args.withDescription("the account's id (accounts list shows it)"))
const platformOption = Options.text("platform").pipe(Options.withDescription("x, bluesky, linkedin, ..."))

const accounts = group("accounts", "Social accounts: connect, log in, set their status, retry after a reconnect.", [
    adminCommand("list", "List a project's accounts.", {}, (_, project) => inProject(project, (p) => `/projects/${p}/accounts`)),
    adminCommand(
      "connect",
      "Connect an account: a simulator one by --username, an aggregator one (instagram, --route aggregator or aggregator_login) by --username with the keys from HERALD_AYRSHARE_API_KEY and HERALD_AYRSHARE_PROFILE_KEY, a direct one through the platform's consent page (the reply's authorize_url).",
      {
        platform: platformOption,
        username: textOption("username", "a simulator account's name, or the Instagram account an aggregator profile links"),
        route: textOption("route", "simulator, direct (the default without --username), facebook_login (instagram), aggregator or aggregator_login (instagram, through Ayrshare)"),
        identifier: textOption("identifier", "Bluesky: the handle or DID to connect")
      },
      // A simulator account is connected by name; an aggregator one by name with the aggregator's
      // keys; a direct one through the platform's consent page, whose URL the reply carries
      // (authorize_url) for the person to open.
      ({ identifier, platform, route, username }, project) => {
        if (Option.contains(route, "aggregator") || Option.contains(route, "aggregator_login")) {
          // Read from the environment, never an option: a command line is visible to every user of the machine.
          const apiKey = process.env.HERALD_AYRSHARE_API_KEY ?? ""
          const profileKey = process.env.HERALD_AYRSHARE_PROFILE_KEY ?? ""
          if (apiKey === "") return usageError("set HERALD_AYRSHARE_API_KEY to the Ayrshare account's API key (and HERALD_AYRSHARE_PROFILE_KEY to the user profile's key)")
          if (Option.isNone(username)) return usageError("name the Instagram account the Ayrshare profile links with --username")
          return inProject(project, (p) => `/projects/${p}/accounts`, "POST", {
            platform,
            username: username.value,
            route: Option.getOrElse(route, () => "aggregator"),
            api_key: apiKey,
            ...(profileKey === "" ? {} : { profile_key: profileKey })
          })
        }
        return Option.isSome(username) || Option.contains(route, "simulator")
          ? inProject(project, (p) => `/projects/${p}/accounts`, "POST", { platform, ...presentFields({ username, route }) })
          : inProject(project, (p) => `/projects/${p}/accounts/oauth`, "POST", { platform, ...presentFields({ identifier, route }) })
      }
    ),
    adminCommand(
      "login",
      "Connect an account by logging in (Bluesky app passwords); the password comes from HERALD_APP_PASSWORD.",
      { platform: platformOption, identifier: Options.text("identifier").pipe(Options.withDescription("the handle, e-mail or DID")) },
      ({ identifier, platform }, project) => {
        // Read from the environment, never an option: a command line is visible to every user of the machine.
        const password = process.env.HERALD_APP_PASSWORD ?? ""
        if (password === "") return usageError("set HERALD_APP_PASSWORD to the account's app password")
        return inProject(project, (p) => `/projects/${p}/accounts/login`, "POST", { platform, identifier, password })
      }
    ),
    adminCommand(
      "set-status",
      "Set an account's status; active after needs_reconnect is the reconnect.",
      { account: accountId, status: Args.choice([["active", "active"], ["needs_reconnect", "needs_reconnect"], ["disconnected", "disconnected"]], { name: "status" }) },
      ({ account, status }, project) => inProject(project, (p) => `/projects/${p}/accounts/${segment(account)}`, "PATCH", { status })
    ),
    adminCommand(
      "retry-auth-failures",
      "Queue the account's auth_expired deliveries again (after a reconnect); prints { queued }.",
      { account: accountId },
      ({ account }, project) => inProject(project, (p) => `/projects/${p}/accounts/${segment(account)}/retry-auth-failures`, "POST")
    )
])

// ---------------------------------------------------------------------------------------------
// webhooks
// ---------------------------------------------------------------------------------------------

const webhookId = Args.text({ name: "webhook id" }).pipe(Args.withDescription("the endpoint's id (webhooks list shows it)"))
const webhookPath = (project: string, webhook: string) => `/projects/${project}/webhooks/${segment(webhook)}`

const webhooks = group("webhooks", "Webhook endpoints: add, enable, disable, delete, and their delivery log.", [
    adminCommand("list", "List a project's webhook endpoints.", {}, (_, project) => inProject(project, (p) => `/projects/${p}/webhooks`)),
    adminCommand(
      "create",
      "Add an endpoint; the reply shows its signing secret once.",
      {
        url: Options.text("url").pipe(Options.withDescription("a public https URL")),
        kinds: Options.text("kinds").pipe(Options.withDescription("comma-separated event kinds: post.published,post.failed,..."))
      },
      ({ kinds, url }, project) =>
        inProject(project, (p) => `/projects/${p}/webhooks`, "POST", { url, kinds: kinds.split(",").map((k) => k.trim()).filter((k) => k !== "") })
    ),
    adminCommand(
      "enable",
      "Turn an endpoint on (clears its failure streak).",
      { webhook: webhookId },
      ({ webhook }, project) => inProject(project, (p) => webhookPath(p, webhook), "PATCH", { enabled: true })
    ),
    adminCommand(
      "disable",
      "Turn an endpoint off.",
      { webhook: webhookId },
      ({ webhook }, project) => inProject(project, (p) => webhookPath(p, webhook), "PATCH", { enabled: false })
    ),
    adminCommand(
      "kinds",
      "Change the event kinds an endpoint receives.",
      { webhook: webhookId, kinds: Options.text("kinds").pipe(Options.withDescription("comma-separated event kinds: post.published,post.failed,...")) },
      ({ kinds, webhook }, project) => inProject(project, (p) => webhookPath(p, webhook), "PATCH", { kinds: list(kinds) })
    ),
    adminCommand(
      "test",
      "Send the endpoint a signed test event now.",
      { webhook: webhookId },
      ({ webhook }, project) => inProject(project, (p) => `${webhookPath(p, webhook)}/test`, "POST")
    ),
    adminCommand(
      "rotate-secret",
      "Give an endpoint a new signing secret (printed once); the old one keeps signing alongside it for the overlap (docs/webhooks.md).",
      {
        webhook: webhookId,
        expiresIn: countOption("expires-in", "seconds the old secret keeps signing, 0 to 604800 (0 ends it now; default 86400)")
      },
      ({ expiresIn, webhook }, project) =>
        inProject(project, (p) => `${webhookPath(p, webhook)}/rotate-secret`, "POST", presentFields({ expires_in_seconds: expiresIn }))
    ),
    adminCommand(
      "delete",
      "Delete an endpoint.",
      { webhook: webhookId },
      ({ webhook }, project) => inProject(project, (p) => webhookPath(p, webhook), "DELETE")
    ),
    adminCommand(
      "deliveries",
      "An endpoint's delivery log, newest first.",
      { webhook: webhookId, limit: countOption("limit", "how many rows"), event: textOption("event", "only this event's deliveries") },
      ({ event, limit, webhook }, project) => {
        const search = new URLSearchParams(
          Object.entries(presentFields({ limit, event_id: event })).map(([key, value]): [string, string] => [key, String(value)])
        ).toString()
        return inProject(project, (p) => `${webhookPath(p, webhook)}/deliveries${search === "" ? "" : `?${search}`}`)
      }
    ),
    adminCommand(
      "resend",
      "Queue a given-up event again.",
      { webhook: webhookId, event: Args.text({ name: "event id" }).pipe(Args.withDescription("the event's id (deliveries shows it)")) },
      ({ event, webhook }, project) => inProject(project, (p) => `${webhookPath(p, webhook)}/deliveries/${segment(event)}/resend`, "POST")
    )
])

// ---------------------------------------------------------------------------------------------
// approval channels
// ---------------------------------------------------------------------------------------------

const approvalChannels = group("approval-channels", "Where held posts' approval links are sent: e-mail or a chat incoming webhook (docs/approval-channels.md).", [
  adminCommand("list", "List a project's approval channels.", {}, (_, project) => inProject(project, (p) => `/projects/${p}/approval-channels`)),
  adminCommand(
    "add-email",
    "Send approval links to an e-mail address.",
    { address: Options.text("address").pipe(Options.withDescription("the reviewer's address")) },
    ({ address }, project) => inProject(project, (p) => `/projects/${p}/approval-channels`, "POST", { kind: "email", address })
  ),
  adminCommand(
    "add-chat",
    "Send approval links to a chat incoming webhook.",
    {
      url: Options.text("url").pipe(Options.withDescription("the incoming-webhook URL")),
      label: Options.text("label").pipe(Options.withDescription("the channel's label, e.g. #approvals"))
    },
    ({ label, url }, project) => inProject(project, (p) => `/projects/${p}/approval-channels`, "POST", { kind: "chat", url, label })
  ),
  adminCommand(
    "remove",
    "Remove an approval channel.",
    { channel: Args.text({ name: "channel id" }).pipe(Args.withDescription("the channel's id (list shows it)")) },
    ({ channel }, project) => inProject(project, (p) => `/projects/${p}/approval-channels/${segment(channel)}`, "DELETE")
  )
])

// ---------------------------------------------------------------------------------------------
// publishing (the emergency stop)
// ---------------------------------------------------------------------------------------------

const reason = { reason: textOption("reason", "why, shown with the pause") }

const publishing = group("publishing", "The emergency stop: pause and resume publishing, for a project or the instance (docs/emergency-stop.md).", [
    adminCommand("list", "The pauses in force.", {}, () => Effect.succeed({ method: "GET", path: "/publishing" })),
    adminCommand("pause", "Stop the project's publishing.", reason, (input, project) =>
      inProject(project, (p) => `/projects/${p}/publishing/pause`, "POST", presentFields(input))),
    adminCommand("resume", "Resume the project's publishing.", {}, (_, project) => inProject(project, (p) => `/projects/${p}/publishing/resume`, "POST")),
    adminCommand("pause-all", "Stop every project's publishing.", reason, (input) =>
      Effect.succeed({ method: "POST", path: "/publishing/pause", body: presentFields(input) })),
    adminCommand("resume-all", "Resume the instance's publishing.", {}, () => Effect.succeed({ method: "POST", path: "/publishing/resume" }))
])

export const adminCli = group("admin", "Manage projects, API keys, social accounts, webhooks and the emergency stop through the admin API of a running server. " +
      "Every admin command takes --server, --token, --project and --data-dir; the token and project default to the data directory's credentials.json.", [projects, keys, accounts, webhooks, approvalChannels, publishing])
