import { Either, Option } from "effect"
import { list, type ParsedArgs } from "./CliArgs.js"

/** One admin API call the CLI makes. */
export interface AdminRequest {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE"
  readonly path: string
  readonly body?: Record<string, unknown>
}

interface Command {
  readonly usage: string
  /** Options this command reads besides the global ones. */
  readonly flags: ReadonlyArray<string>
  readonly positionals: ReadonlyArray<string>
  readonly build: (input: Input) => Either.Either<AdminRequest, string>
}

interface Input {
  readonly project: () => Either.Either<string, string>
  readonly flag: (name: string) => Option.Option<string>
  readonly positional: (index: number) => string
}

/** Options every admin command takes. */
export const globalFlags = ["server", "token", "project", "data-dir"] as const

const int = (name: string, text: string): Either.Either<number, string> =>
  /^[0-9]+$/.test(text) ? Either.right(Number(text)) : Either.left(`--${name} must be a whole number, got ${JSON.stringify(text)}`)

/** The body fields given as options: each flag maps to a field, converted; absent flags are left out. */
const fields = (
  input: Input,
  spec: ReadonlyArray<readonly [flag: string, field: string, convert: (flag: string, text: string) => Either.Either<unknown, string>]>
): Either.Either<Record<string, unknown>, string> =>
  Either.all(spec.flatMap(([flag, field, convert]) =>
    Option.match(input.flag(flag), {
      onNone: () => [],
      onSome: (text) => [Either.map(convert(flag, text), (value) => [field, value] as const)]
    })
  )).pipe(Either.map((entries) => Object.fromEntries(entries)))

const text = (_flag: string, value: string) => Either.right(value)
const csv = (_flag: string, value: string) => Either.right(list(value))
const capOrNone = (flag: string, value: string) => value === "none" ? Either.right(null) : int(flag, value)

const projectFields = [
  ["name", "name", text],
  ["timezone", "timezone", text],
  ["approval", "approval", text],
  ["signature", "signature", text],
  ["plan", "plan", text]
] as const

const guardrailFields = [
  ["banned-words", "banned_words", csv],
  ["banned-topics", "banned_topics", csv],
  ["tone", "tone", (_flag: string, value: string) => Either.right(value === "none" ? null : value)],
  ["project-daily-cap", "daily_post_cap", capOrNone]
] as const

const withGuardrails = (input: Input, body: Record<string, unknown>) =>
  Either.map(fields(input, guardrailFields), (guardrails) =>
    Object.keys(guardrails).length === 0 ? body : { ...body, guardrails })

const keyLimitFields = [
  ["rate-limit", "rate_limit_per_minute", int],
  ["daily-cap", "daily_post_cap", capOrNone]
] as const

const inProject = (input: Input, path: (project: string) => string, method: AdminRequest["method"] = "GET") =>
  Either.map(input.project(), (project) => ({ method, path: path(encodeURIComponent(project)) }))

const withBody = (request: Either.Either<AdminRequest, string>, body: Either.Either<Record<string, unknown>, string>) =>
  Either.flatMap(request, (req) => Either.map(body, (b) => ({ ...req, body: b })))

const id = (input: Input, index: number) => encodeURIComponent(input.positional(index))

/** `herald admin <resource> <action>`: every command, keyed "resource action". */
export const adminCommands: Readonly<Record<string, Command>> = {
  "projects list": { usage: "projects list", flags: [], positionals: [], build: () => Either.right({ method: "GET", path: "/projects" }) },
  "projects get": {
    usage: "projects get [--project <id>]",
    flags: [],
    positionals: [],
    build: (input) => inProject(input, (p) => `/projects/${p}`)
  },
  "projects create": {
    usage: "projects create --name <name> [--timezone <IANA zone>] [--approval copilot|autopilot] [--signature <text>] " +
      "[--plan active|inactive] [--banned-words a,b] [--banned-topics a,b] [--tone <tone>] [--project-daily-cap <n>]",
    flags: [...projectFields.map(([flag]) => flag), ...guardrailFields.map(([flag]) => flag)],
    positionals: [],
    build: (input) =>
      Either.flatMap(fields(input, projectFields), (body) =>
        Either.map(withGuardrails(input, body), (b) => ({ method: "POST" as const, path: "/projects", body: b })))
  },
  "projects update": {
    usage: "projects update [--project <id>] [--name ...] [--timezone ...] [--approval ...] [--signature ...] [--plan ...] " +
      "[--banned-words a,b] [--banned-topics a,b] [--tone <tone>|none] [--project-daily-cap <n>|none]",
    flags: [...projectFields.map(([flag]) => flag), ...guardrailFields.map(([flag]) => flag)],
    positionals: [],
    build: (input) =>
      withBody(
        inProject(input, (p) => `/projects/${p}`, "PATCH"),
        Either.flatMap(fields(input, projectFields), (body) => withGuardrails(input, body))
      )
  },
  "projects check-guardrails": {
    usage: "projects check-guardrails --caption <text> [--project <id>] [--banned-words a,b] [--banned-topics a,b] [--tone <tone>|none] " +
      "(a dry run; the rule options try rules before saving them)",
    flags: ["caption", ...guardrailFields.map(([flag]) => flag)],
    positionals: [],
    build: (input) =>
      withBody(
        inProject(input, (p) => `/projects/${p}/guardrails/check`, "POST"),
        Either.flatMap(fields(input, [["caption", "caption", text]]), (body) => withGuardrails(input, body))
      )
  },
  "keys list": {
    usage: "keys list [--project <id>]",
    flags: [],
    positionals: [],
    build: (input) => inProject(input, (p) => `/projects/${p}/keys`)
  },
  "keys create": {
    usage: "keys create --kind agent|human --scopes posts:read,posts:write[,posts:approve] [--name <name>] " +
      "[--rate-limit <per minute>] [--daily-cap <n>] [--project <id>]",
    flags: ["kind", "scopes", "name", "rate-limit", "daily-cap"],
    positionals: [],
    build: (input) =>
      withBody(
        inProject(input, (p) => `/projects/${p}/keys`, "POST"),
        fields(input, [
          ["kind", "kind", text],
          ["scopes", "scopes", csv],
          ["name", "name", text],
          ...keyLimitFields
        ])
      )
  },
  "keys update": {
    usage: "keys update <key id> [--rate-limit <per minute>] [--daily-cap <n>|none] [--project <id>]",
    flags: ["rate-limit", "daily-cap"],
    positionals: ["key id"],
    build: (input) =>
      withBody(
        inProject(input, (p) => `/projects/${p}/keys/${id(input, 0)}`, "PATCH"),
        fields(input, keyLimitFields)
      )
  },
  "keys revoke": {
    usage: "keys revoke <key id> [--project <id>]",
    flags: [],
    positionals: ["key id"],
    build: (input) => inProject(input, (p) => `/projects/${p}/keys/${id(input, 0)}/revoke`, "POST")
  },
  "accounts list": {
    usage: "accounts list [--project <id>]",
    flags: [],
    positionals: [],
    build: (input) => inProject(input, (p) => `/projects/${p}/accounts`)
  },
  "accounts connect": {
    usage:
      "accounts connect --platform <platform> [--username <name> (simulator)] [--route simulator|direct] [--identifier <handle> (bluesky)] [--project <id>]",
    flags: ["platform", "username", "route", "identifier"],
    positionals: [],
    // A simulator account is connected by name; a direct one through the platform's consent page,
    // whose URL the reply carries (authorize_url) for the person to open.
    build: (input) =>
      Option.isSome(input.flag("username")) || Option.contains(input.flag("route"), "simulator")
        ? withBody(
          inProject(input, (p) => `/projects/${p}/accounts`, "POST"),
          fields(input, [["platform", "platform", text], ["username", "username", text], ["route", "route", text]])
        )
        : withBody(
          inProject(input, (p) => `/projects/${p}/accounts/oauth`, "POST"),
          fields(input, [["platform", "platform", text], ["identifier", "identifier", text], ["route", "route", text]])
        )
  },
  "accounts login": {
    usage: "accounts login --platform bluesky --identifier <handle> [--project <id>]   (the app password from HERALD_APP_PASSWORD)",
    flags: ["platform", "identifier"],
    positionals: [],
    build: (input) => {
      // Read from the environment, never a flag: a command line is visible to every user of the machine.
      const password = process.env.HERALD_APP_PASSWORD ?? ""
      if (password === "") return Either.left("set HERALD_APP_PASSWORD to the account's app password")
      return withBody(
        inProject(input, (p) => `/projects/${p}/accounts/login`, "POST"),
        Either.map(fields(input, [["platform", "platform", text], ["identifier", "identifier", text]]), (body) => ({ ...body, password }))
      )
    }
  },
  "accounts set-status": {
    usage: "accounts set-status <account id> active|needs_reconnect|disconnected [--project <id>]",
    flags: [],
    positionals: ["account id", "status"],
    build: (input) =>
      Either.map(inProject(input, (p) => `/projects/${p}/accounts/${id(input, 0)}`, "PATCH"), (req) => ({
        ...req,
        body: { status: input.positional(1) }
      }))
  },
  "accounts retry-auth-failures": {
    usage: "accounts retry-auth-failures <account id> [--project <id>]",
    flags: [],
    positionals: ["account id"],
    build: (input) => inProject(input, (p) => `/projects/${p}/accounts/${id(input, 0)}/retry-auth-failures`, "POST")
  },
  "webhooks list": {
    usage: "webhooks list [--project <id>]",
    flags: [],
    positionals: [],
    build: (input) => inProject(input, (p) => `/projects/${p}/webhooks`)
  },
  "webhooks create": {
    usage: "webhooks create --url <https URL> --kinds post.published,post.failed,... [--project <id>]",
    flags: ["url", "kinds"],
    positionals: [],
    build: (input) =>
      withBody(
        inProject(input, (p) => `/projects/${p}/webhooks`, "POST"),
        fields(input, [["url", "url", text], ["kinds", "kinds", csv]])
      )
  },
  "webhooks enable": {
    usage: "webhooks enable <webhook id> [--project <id>]",
    flags: [],
    positionals: ["webhook id"],
    build: (input) =>
      Either.map(inProject(input, (p) => `/projects/${p}/webhooks/${id(input, 0)}`, "PATCH"), (req) => ({ ...req, body: { enabled: true } }))
  },
  "webhooks disable": {
    usage: "webhooks disable <webhook id> [--project <id>]",
    flags: [],
    positionals: ["webhook id"],
    build: (input) =>
      Either.map(inProject(input, (p) => `/projects/${p}/webhooks/${id(input, 0)}`, "PATCH"), (req) => ({ ...req, body: { enabled: false } }))
  },
  "webhooks kinds": {
    usage: "webhooks kinds <webhook id> --kinds post.published,post.failed,... [--project <id>]",
    flags: ["kinds"],
    positionals: ["webhook id"],
    build: (input) =>
      withBody(inProject(input, (p) => `/projects/${p}/webhooks/${id(input, 0)}`, "PATCH"), fields(input, [["kinds", "kinds", csv]]))
  },
  "webhooks test": {
    usage: "webhooks test <webhook id> [--project <id>]",
    flags: [],
    positionals: ["webhook id"],
    build: (input) => inProject(input, (p) => `/projects/${p}/webhooks/${id(input, 0)}/test`, "POST")
  },
  "webhooks delete": {
    usage: "webhooks delete <webhook id> [--project <id>]",
    flags: [],
    positionals: ["webhook id"],
    build: (input) => inProject(input, (p) => `/projects/${p}/webhooks/${id(input, 0)}`, "DELETE")
  },
  "webhooks deliveries": {
    usage: "webhooks deliveries <webhook id> [--limit <n>] [--event <event id>] [--project <id>]",
    flags: ["limit", "event"],
    positionals: ["webhook id"],
    build: (input) =>
      Either.flatMap(fields(input, [["limit", "limit", int], ["event", "event_id", text]]), (query) =>
        inProject(input, (p) => {
          const search = new URLSearchParams(Object.entries(query).map(([key, value]): [string, string] => [key, String(value)])).toString()
          return `/projects/${p}/webhooks/${id(input, 0)}/deliveries${search === "" ? "" : `?${search}`}`
        }))
  },
  "approval-channels list": {
    usage: "approval-channels list [--project <id>]",
    flags: [],
    positionals: [],
    build: (input) => inProject(input, (p) => `/projects/${p}/approval-channels`)
  },
  "approval-channels add-email": {
    usage: "approval-channels add-email --address <reviewer@example.com> [--project <id>]",
    flags: ["address"],
    positionals: [],
    build: (input) =>
      withBody(
        inProject(input, (p) => `/projects/${p}/approval-channels`, "POST"),
        Either.map(fields(input, [["address", "address", text]]), (body) => ({ kind: "email", ...body }))
      )
  },
  "approval-channels add-chat": {
    usage: "approval-channels add-chat --url <incoming-webhook URL> --label <#channel> [--project <id>]",
    flags: ["url", "label"],
    positionals: [],
    build: (input) =>
      withBody(
        inProject(input, (p) => `/projects/${p}/approval-channels`, "POST"),
        Either.map(fields(input, [["url", "url", text], ["label", "label", text]]), (body) => ({ kind: "chat", ...body }))
      )
  },
  "approval-channels remove": {
    usage: "approval-channels remove <channel id> [--project <id>]",
    flags: [],
    positionals: ["channel id"],
    build: (input) => inProject(input, (p) => `/projects/${p}/approval-channels/${id(input, 0)}`, "DELETE")
  },
  "publishing list": {
    usage: "publishing list",
    flags: [],
    positionals: [],
    build: () => Either.right({ method: "GET", path: "/publishing" })
  },
  "publishing pause": {
    usage: "publishing pause [--reason <text>] [--project <id>]",
    flags: ["reason"],
    positionals: [],
    build: (input) => withBody(inProject(input, (p) => `/projects/${p}/publishing/pause`, "POST"), fields(input, [["reason", "reason", text]]))
  },
  "publishing resume": {
    usage: "publishing resume [--project <id>]",
    flags: [],
    positionals: [],
    build: (input) => inProject(input, (p) => `/projects/${p}/publishing/resume`, "POST")
  },
  "publishing pause-all": {
    usage: "publishing pause-all [--reason <text>]",
    flags: ["reason"],
    positionals: [],
    build: (input) => Either.map(fields(input, [["reason", "reason", text]]), (body) => ({ method: "POST" as const, path: "/publishing/pause", body }))
  },
  "publishing resume-all": {
    usage: "publishing resume-all",
    flags: [],
    positionals: [],
    build: () => Either.right({ method: "POST", path: "/publishing/resume" })
  },
  "webhooks resend": {
    usage: "webhooks resend <webhook id> <event id> [--project <id>]",
    flags: [],
    positionals: ["webhook id", "event id"],
    build: (input) => inProject(input, (p) => `/projects/${p}/webhooks/${id(input, 0)}/deliveries/${id(input, 1)}/resend`, "POST")
  }
}

export const adminUsage = Object.values(adminCommands).map((command) => `  herald admin ${command.usage}`).join("\n")

/**
 * The request an `admin` command line asks for (args after `admin`), or why it cannot be made.
 * defaultProject is credentials.json's project_id, used when --project is absent.
 */
export const adminRequest = (args: ParsedArgs, defaultProject: Option.Option<string>): Either.Either<AdminRequest, string> => {
  const [resource, action, ...rest] = args.positionals
  const command = adminCommands[`${resource} ${action}`]
  if (command === undefined) {
    return Either.left(`unknown admin command ${JSON.stringify([resource, action].filter(Boolean).join(" "))}; one of:\n${adminUsage}`)
  }
  const unknown = [...args.flags.keys()].filter((flag) => !command.flags.includes(flag) && !(globalFlags as ReadonlyArray<string>).includes(flag))
  if (unknown.length > 0) return Either.left(`unknown option --${unknown[0]}; usage: herald admin ${command.usage}`)
  if (rest.length !== command.positionals.length) {
    return Either.left(`expected ${command.positionals.length === 0 ? "no arguments" : command.positionals.map((p) => `<${p}>`).join(" ")}; ` +
      `usage: herald admin ${command.usage}`)
  }
  return command.build({
    flag: (name) => Option.fromNullable(args.flags.get(name)),
    positional: (index) => rest[index]!,
    project: () =>
      Option.orElse(Option.fromNullable(args.flags.get("project")), () => defaultProject).pipe(
        Either.fromOption(() => "which project? pass --project <id> (or keep credentials.json in the data directory)")
      )
  })
}
