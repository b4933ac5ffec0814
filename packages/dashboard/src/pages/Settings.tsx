import { useState } from "preact/hooks"
import { type ApiError, del, get, patch, post } from "../api.js"
import type { PageProps } from "../routes.js"
import type { AdminProject, GuardrailVerdict } from "../types.js"
import { VerdictView } from "../Verdict.js"
import { asApiError, Empty, ErrorNote, Loading, Notice, useLoad, When } from "../ui.js"

interface AdminKey {
  readonly id: string
  readonly name: string
  readonly prefix: string
  readonly kind: string
  readonly scopes: ReadonlyArray<string>
  readonly rate_limit_per_minute: number
  readonly daily_post_cap: number | null
  readonly revoked_at: string | null
}
interface AdminWebhook {
  readonly id: string
  readonly url: string
  readonly kinds: ReadonlyArray<string>
  readonly enabled: boolean
  readonly consecutive_failures: number
  readonly last_error: string | null
}
interface WebhookAttempt {
  readonly event: string
  readonly attempt: number
  readonly at: string
  readonly status_code: number | null
  readonly outcome: string
  readonly error: string | null
}
interface ApprovalChannel {
  readonly id: string
  readonly kind: string
  readonly recipient: string
}

const eventKinds = ["post.published", "post.failed", "post.approved", "post.rejected", "account.needs_reconnect"] as const
const scopes = ["posts:read", "posts:write", "posts:approve"] as const
const list = (text: string) => text.split(",").map((item) => item.trim()).filter((item) => item !== "")
const capOf = (text: string) => (text.trim() === "" ? null : Number(text))

/** A secret shown once: selectable text and a copy button. */
const ShownOnce = ({ label, secret }: { readonly label: string; readonly secret: string }) => {
  const [copied, setCopied] = useState(false)
  return (
    <div class="once" role="region" aria-label={label}>
      <p><strong>{label}</strong>: shown once. Copy it now; Herald keeps only its hash.</p>
      <code class="secret">{secret}</code>{" "}
      <button type="button" onClick={() => void navigator.clipboard?.writeText(secret).then(() => setCopied(true))}>
        {copied ? "Copied" : "Copy"}
      </button>
    </div>
  )
}

/** Runs an action, showing its error or a confirmation. */
const useAction = () => {
  const [error, setError] = useState<ApiError | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const run = async (action: () => Promise<unknown>, done: string) => {
    setError(null)
    try {
      await action()
      setNotice(done)
      return true
    } catch (caught) {
      setError(asApiError(caught))
      return false
    }
  }
  return { error, notice, run }
}

const ProjectForm = ({ project, onSaved }: { readonly project: AdminProject; readonly onSaved: () => void }) => {
  const action = useAction()
  const [verdict, setVerdict] = useState<GuardrailVerdict | null>(null)
  const guardrailsOf = (form: FormData) => ({
    banned_words: list(String(form.get("banned_words") ?? "")),
    banned_topics: list(String(form.get("banned_topics") ?? "")),
    daily_post_cap: capOf(String(form.get("daily_post_cap") ?? ""))
  })
  const save = (event: Event) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    const text = (name: string) => String(form.get(name) ?? "")
    void action.run(() =>
      patch(`/admin/v1/projects/${project.id}`, {
        approval: text("approval"),
        timezone: text("timezone"),
        signature: text("signature"),
        guardrails: guardrailsOf(form)
      }).then(onSaved), "Project settings saved.")
  }
  // The dry run checks the rules as typed, saved or not.
  const dryRun = (event: Event) => {
    const form = new FormData((event.currentTarget as HTMLButtonElement).form!)
    void action.run(async () => {
      setVerdict(await post<GuardrailVerdict>(`/admin/v1/projects/${project.id}/guardrails/check`, {
        caption: String(form.get("dry_run") ?? ""),
        guardrails: guardrailsOf(form)
      }))
    }, "Dry run done.")
  }
  return (
    <form onSubmit={save} aria-labelledby="project-heading">
      <h2 id="project-heading">Project</h2>
      <label>Approval mode
        <select name="approval" defaultValue={project.approval}>
          <option value="copilot">copilot: agents' posts wait for a person</option>
          <option value="autopilot">autopilot: posts go out unless a guardrail holds them</option>
        </select>
      </label>
      <label>Time zone (IANA, e.g. Europe/Paris)<input name="timezone" defaultValue={project.timezone} required /></label>
      <label>Signature<textarea name="signature" rows={2} defaultValue={project.signature} /></label>
      <label>Banned words (comma-separated)<input name="banned_words" defaultValue={project.guardrails.banned_words.join(", ")} /></label>
      <label>Banned topics (comma-separated)<input name="banned_topics" defaultValue={project.guardrails.banned_topics.join(", ")} /></label>
      <label>Daily post cap (empty: none)<input name="daily_post_cap" inputMode="numeric" defaultValue={project.guardrails.daily_post_cap?.toString() ?? ""} /></label>
      <button type="submit">Save project</button>
      <label>Dry run: a caption to check against these rules<textarea name="dry_run" rows={2} /></label>
      <button type="button" onClick={dryRun}>Check caption</button>
      {verdict !== null && <VerdictView verdict={verdict} />}
      {action.error !== null && <ErrorNote error={action.error} />}
      <Notice text={action.notice} />
    </form>
  )
}

const Keys = ({ projectId }: { readonly projectId: string }) => {
  const keys = useLoad(() => get<{ data: ReadonlyArray<AdminKey> }>(`/admin/v1/projects/${projectId}/keys`), [projectId])
  const [created, setCreated] = useState<string | null>(null)
  const action = useAction()
  const create = (event: Event) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    void action.run(async () => {
      const reply = await post<{ key: string }>(`/admin/v1/projects/${projectId}/keys`, {
        name: String(form.get("name") ?? ""),
        kind: String(form.get("kind")),
        scopes: scopes.filter((scope) => form.get(scope) !== null),
        rate_limit_per_minute: Number(form.get("rate") || 60),
        daily_post_cap: capOf(String(form.get("cap") ?? ""))
      })
      setCreated(reply.key)
      await keys.reload()
    }, "Key created.")
  }
  const limits = (key: AdminKey) => {
    const rate = window.prompt(`Requests a minute for ${key.name || key.prefix}`, String(key.rate_limit_per_minute))
    if (rate === null) return
    const cap = window.prompt("Posts a day (empty: none of its own)", key.daily_post_cap?.toString() ?? "")
    if (cap === null) return
    void action.run(() => patch(`/admin/v1/projects/${projectId}/keys/${key.id}`, { rate_limit_per_minute: Number(rate), daily_post_cap: capOf(cap) }).then(keys.reload), "Limits saved.")
  }
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      {created !== null && <ShownOnce label="New API key" secret={created} />}
      {keys.value === undefined
        ? keys.error === undefined ? <Loading /> : <ErrorNote error={keys.error} onRetry={keys.reload} />
        : keys.value.data.length === 0
        ? <Empty>No key yet.</Empty>
        : (
          <table>
            <thead><tr><th scope="col">Key</th><th scope="col">Kind</th><th scope="col">Scopes</th><th scope="col">Limits</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {keys.value.data.map((key) => (
                <tr key={key.id}>
                  <th scope="row">{key.name || "(unnamed)"} <code>{key.prefix}…</code></th>
                  <td>{key.kind}</td>
                  <td>{key.scopes.join(", ")}</td>
                  <td>{key.rate_limit_per_minute}/min, {key.daily_post_cap === null ? "no daily cap" : `${key.daily_post_cap}/day`}</td>
                  <td>
                    {key.revoked_at === null
                      ? (
                        <>
                          <button type="button" onClick={() => limits(key)}>Edit limits</button>{" "}
                          <button
                            type="button"
                            onClick={() =>
                              window.confirm(`Revoke ${key.name || key.prefix}? Requests with it will be refused from now on.`) &&
                              void action.run(() => post(`/admin/v1/projects/${projectId}/keys/${key.id}/revoke`).then(keys.reload), "Key revoked.")}
                          >
                            Revoke
                          </button>
                        </>
                      )
                      : <>Revoked <When iso={key.revoked_at} /></>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      <form onSubmit={create} aria-label="Create an API key">
        <label>Name<input name="name" maxLength={200} /></label>
        <label>Kind
          <select name="kind"><option value="human">human (a person)</option><option value="agent">agent (software)</option></select>
        </label>
        <fieldset><legend>Scopes</legend>
          {scopes.map((scope) => <label key={scope} class="inline"><input type="checkbox" name={scope} defaultChecked={scope !== "posts:approve"} /> {scope}</label>)}
        </fieldset>
        <label>Requests a minute<input name="rate" inputMode="numeric" defaultValue="60" /></label>
        <label>Posts a day (empty: none)<input name="cap" inputMode="numeric" /></label>
        <button type="submit">Create key</button>
      </form>
      {action.error !== null && <ErrorNote error={action.error} />}
      <Notice text={action.notice} />
    </section>
  )
}

const DeliveryLog = ({ projectId, webhookId }: { readonly projectId: string; readonly webhookId: string }) => {
  const log = useLoad(() => get<{ data: ReadonlyArray<WebhookAttempt> }>(`/admin/v1/projects/${projectId}/webhooks/${webhookId}/deliveries?limit=20`), [webhookId])
  if (log.value === undefined) return log.error === undefined ? <Loading /> : <ErrorNote error={log.error} onRetry={log.reload} />
  if (log.value.data.length === 0) return <Empty>Nothing sent yet.</Empty>
  return (
    <table>
      <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Status</th><th scope="col">Outcome</th></tr></thead>
      <tbody>
        {log.value.data.map((attempt, index) => (
          <tr key={index}>
            <td><When iso={attempt.at} /></td><td>{attempt.event}</td><td>{attempt.attempt}</td>
            <td>{attempt.status_code ?? "no reply"}</td><td>{attempt.outcome}{attempt.error === null ? "" : `: ${attempt.error}`}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const Webhooks = ({ projectId }: { readonly projectId: string }) => {
  const hooks = useLoad(() => get<{ data: ReadonlyArray<AdminWebhook> }>(`/admin/v1/projects/${projectId}/webhooks`), [projectId])
  const [secret, setSecret] = useState<string | null>(null)
  const [open, setOpen] = useState<string | null>(null)
  const action = useAction()
  const base = `/admin/v1/projects/${projectId}/webhooks`
  const create = (event: Event) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    void action.run(async () => {
      const reply = await post<{ secret: string }>(base, { url: String(form.get("url") ?? ""), kinds: eventKinds.filter((kind) => form.get(kind) !== null) })
      setSecret(reply.secret)
      await hooks.reload()
    }, "Endpoint added.")
  }
  const test = (hook: AdminWebhook) =>
    action.run(async () => {
      const reply = await post<{ accepted: boolean; status_code: number | null; error: string | null }>(`${base}/${hook.id}/test`)
      if (!reply.accepted) throw new Error(`the endpoint did not accept the test event: ${reply.error ?? reply.status_code}`)
    }, "The endpoint accepted the test event.")
  const editKinds = (hook: AdminWebhook) => {
    const kinds = window.prompt(`Event kinds for ${hook.url} (comma-separated: ${eventKinds.join(", ")})`, hook.kinds.join(", "))
    if (kinds !== null) void action.run(() => patch(`${base}/${hook.id}`, { kinds: list(kinds) }).then(hooks.reload), "Event kinds saved.")
  }
  return (
    <section aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      {secret !== null && <ShownOnce label="Signing secret" secret={secret} />}
      {hooks.value === undefined
        ? hooks.error === undefined ? <Loading /> : <ErrorNote error={hooks.error} onRetry={hooks.reload} />
        : hooks.value.data.length === 0
        ? <Empty>No webhook endpoint.</Empty>
        : hooks.value.data.map((hook) => (
          <article key={hook.id} class="card">
            <h3><code>{hook.url}</code> {hook.enabled ? "" : <span class="badge">disabled</span>}</h3>
            <p>Kinds: {hook.kinds.join(", ")}. {hook.consecutive_failures > 0 && `${hook.consecutive_failures} given up in a row. `}{hook.last_error ?? ""}</p>
            <button type="button" onClick={() => editKinds(hook)}>Edit kinds</button>{" "}
            <button type="button" onClick={() => void action.run(() => patch(`${base}/${hook.id}`, { enabled: !hook.enabled }).then(hooks.reload), hook.enabled ? "Endpoint disabled." : "Endpoint re-enabled.")}>
              {hook.enabled ? "Disable" : "Re-enable"}
            </button>{" "}
            <button type="button" onClick={() => void test(hook)}>Send a test event</button>{" "}
            <button type="button" aria-expanded={open === hook.id} onClick={() => setOpen(open === hook.id ? null : hook.id)}>Delivery log</button>{" "}
            <button type="button" onClick={() => window.confirm(`Delete ${hook.url}?`) && void action.run(() => del(`${base}/${hook.id}`).then(hooks.reload), "Endpoint deleted.")}>Delete</button>
            {open === hook.id && <DeliveryLog projectId={projectId} webhookId={hook.id} />}
          </article>
        ))}
      <form onSubmit={create} aria-label="Add a webhook endpoint">
        <label>https URL<input name="url" type="url" required /></label>
        <fieldset><legend>Event kinds</legend>
          {eventKinds.map((kind) => <label key={kind} class="inline"><input type="checkbox" name={kind} defaultChecked={kind.startsWith("post.")} /> {kind}</label>)}
        </fieldset>
        <button type="submit">Add endpoint</button>
      </form>
      {action.error !== null && <ErrorNote error={action.error} />}
      <Notice text={action.notice} />
    </section>
  )
}

const Channels = ({ projectId }: { readonly projectId: string }) => {
  const base = `/admin/v1/projects/${projectId}/approval-channels`
  const channels = useLoad(() => get<{ data: ReadonlyArray<ApprovalChannel> }>(base), [projectId])
  const action = useAction()
  const add = (event: Event) => {
    event.preventDefault()
    const formElement = event.currentTarget as HTMLFormElement
    const form = new FormData(formElement)
    const body = form.get("kind") === "email"
      ? { kind: "email", address: String(form.get("target") ?? "") }
      : { kind: "chat", url: String(form.get("target") ?? ""), label: String(form.get("label") ?? "") }
    void action.run(() => post(base, body).then(() => formElement.reset()).then(channels.reload), "Channel added.")
  }
  return (
    <section aria-labelledby="channels-heading">
      <h2 id="channels-heading">Approval channels</h2>
      <p class="help">Posts held from now on are announced here, each message with its own approve/reject link.</p>
      {channels.value === undefined
        ? channels.error === undefined ? <Loading /> : <ErrorNote error={channels.error} onRetry={channels.reload} />
        : channels.value.data.length === 0
        ? <Empty>No approval channel: held posts wait in the queue only.</Empty>
        : (
          <ul>
            {channels.value.data.map((channel) => (
              <li key={channel.id}>
                {channel.kind === "email" ? "E-mail" : "Chat"}: {channel.recipient}{" "}
                <button type="button" onClick={() => void action.run(() => del(`${base}/${channel.id}`).then(channels.reload), "Channel removed.")}>Remove</button>
              </li>
            ))}
          </ul>
        )}
      <form onSubmit={add} aria-label="Add an approval channel">
        <label>Kind<select name="kind"><option value="email">e-mail (one reviewer)</option><option value="chat">chat incoming webhook</option></select></label>
        <label>Address or incoming-webhook URL<input name="target" required /></label>
        <label>Chat label (e.g. #approvals)<input name="label" /></label>
        <button type="submit">Add channel</button>
      </form>
      {action.error !== null && <ErrorNote error={action.error} />}
      <Notice text={action.notice} />
    </section>
  )
}

interface AdminAccount {
  readonly id: string
  readonly platform: string
  readonly username: string
  readonly route: string
  readonly status: string
}

const platforms = ["x", "instagram", "facebook", "threads", "pinterest", "tiktok", "youtube", "linkedin", "bluesky"] as const

/**
 * Connecting a direct account is the platform's OAuth consent: the admin API answers the consent
 * URL, which opens in this tab; the platform returns to Herald's callback, which finishes it.
 * Reconnecting is the same flow for the account's platform. Simulator accounts connect at once.
 */
const Accounts = ({ projectId }: { readonly projectId: string }) => {
  const base = `/admin/v1/projects/${projectId}/accounts`
  const accounts = useLoad(() => get<{ data: ReadonlyArray<AdminAccount> }>(base), [projectId])
  const action = useAction()
  const consent = (platform: string) =>
    void action.run(async () => {
      const started = await post<{ authorize_url: string }>(`${base}/oauth`, { platform })
      window.location.assign(started.authorize_url)
    }, "Opening the platform's consent page…")
  const connect = (event: Event) => {
    event.preventDefault()
    const formElement = event.currentTarget as HTMLFormElement
    const form = new FormData(formElement)
    const platform = String(form.get("platform"))
    if (form.get("route") === "direct") return consent(platform)
    void action.run(() => post(base, { platform, username: String(form.get("username") ?? "") }).then(accounts.reload), "Account connected.")
  }
  return (
    <section aria-labelledby="accounts-heading">
      <h2 id="accounts-heading">Accounts</h2>
      {accounts.value === undefined
        ? accounts.error === undefined ? <Loading /> : <ErrorNote error={accounts.error} onRetry={accounts.reload} />
        : accounts.value.data.length === 0
        ? <Empty>No connected account.</Empty>
        : (
          <table>
            <thead><tr><th scope="col">Account</th><th scope="col">Route</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {accounts.value.data.map((account) => (
                <tr key={account.id}>
                  <th scope="row">{account.platform} @{account.username}</th>
                  <td>{account.route}</td>
                  <td>{account.status.replaceAll("_", " ")}</td>
                  <td>{account.route === "simulator" ? "" : <button type="button" onClick={() => consent(account.platform)}>Reconnect</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      <form onSubmit={connect} aria-label="Connect an account">
        <label>Platform<select name="platform">{platforms.map((platform) => <option key={platform} value={platform}>{platform}</option>)}</select></label>
        <label>Route
          <select name="route"><option value="direct">direct (the platform's consent)</option><option value="simulator">simulator (local, for trying Herald)</option></select>
        </label>
        <label>Username (simulator only)<input name="username" /></label>
        <button type="submit">Connect</button>
      </form>
      {action.error !== null && <ErrorNote error={action.error} />}
      <Notice text={action.notice} />
    </section>
  )
}

/**
 * A project's settings for the operator (the admin API only): the project itself, its API keys,
 * webhook endpoints and approval channels. Secrets (a new key, a webhook's signing secret) are
 * shown once, in the reply that made them, with a copy button; nothing keeps them afterwards.
 * #/settings/<project id>, reached from the Projects page.
 */
export const Settings = ({ params }: PageProps) => {
  const projectId = params[0] ?? ""
  const project = useLoad(() => get<AdminProject>(`/admin/v1/projects/${projectId}`), [projectId])
  if (projectId === "") return <Empty>Choose a project on the Projects page.</Empty>
  if (project.value === undefined) return project.error === undefined ? <Loading /> : <ErrorNote error={project.error} onRetry={project.reload} />
  return (
    <div class="settings">
      <p>{project.value.name} <code>{project.value.id}</code></p>
      <ProjectForm project={project.value} onSaved={() => void project.reload()} />
      <Keys projectId={projectId} />
      <Accounts projectId={projectId} />
      <Webhooks projectId={projectId} />
      <Channels projectId={projectId} />
    </div>
  )
}
