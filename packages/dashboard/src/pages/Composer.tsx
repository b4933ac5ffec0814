import { useEffect, useState } from "preact/hooks"
import { type ApiError, get, post, upload } from "../api.js"
import { MediaThumbs } from "../MediaThumbs.js"
import { appendSignature, captionLength } from "../core.js"
import { platformName } from "../PostPreview.js"
import { href } from "../router.js"
import type { PageProps } from "../routes.js"
import type { AccountRules, GuardrailVerdict, Platform, PostingOption, Project } from "../types.js"
import { asApiError, Empty, ErrorNote, Loading, Notice, useLoad } from "../ui.js"
import { checkGuardrails, VerdictView } from "../Verdict.js"
import { zonedToUtc } from "../zonedTime.js"

/** How long typing pauses before the caption is checked against the guardrails. */
const checkDelayMillis = 400

interface Attached {
  readonly name: string
  readonly progress: number
  readonly id?: string
  readonly error?: string
}

type Configurations = Partial<Record<Platform, Record<string, string | boolean>>>

/** An account's caption as it will print (signature appended) against its ceiling, counted as its network counts. */
const CaptionCount = ({ account, caption, signature }: { readonly account: AccountRules; readonly caption: string; readonly signature: string }) => {
  const used = caption.trim() === "" ? 0 : captionLength[account.platform](appendSignature(caption, signature))
  const over = used > account.limits.caption_chars
  return (
    <span class={over ? "count over" : "count"}>
      {used} / {account.limits.caption_chars}{over ? ` (${used - account.limits.caption_chars} over)` : ""}
    </span>
  )
}

/** The options a platform takes (GET /posting-rules), but its caption override: the composer writes one caption. */
const OptionField = ({ platform, option, value, onChange }: {
  readonly platform: Platform
  readonly option: PostingOption
  readonly value: string | boolean | undefined
  readonly onChange: (value: string | boolean | undefined) => void
}) => {
  const id = `option-${platform}-${option.key}`
  const label = option.key.replaceAll("_", " ")
  if (option.kind === "boolean") {
    return (
      <div class="field">
        <input id={id} type="checkbox" checked={value === true} onChange={(event) => onChange(event.currentTarget.checked ? true : undefined)} />
        <label for={id}>{label}</label>
        <p class="help">{option.note}</p>
      </div>
    )
  }
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {option.values !== null
        ? (
          <select id={id} value={typeof value === "string" ? value : ""} onChange={(event) => onChange(event.currentTarget.value || undefined)}>
            <option value="">Default{option.default !== null ? ` (${String(option.default)})` : ""}</option>
            {option.values.map((choice) => <option key={choice} value={choice}>{choice}</option>)}
          </select>
        )
        : (
          <input
            id={id}
            type="text"
            maxLength={option.max_length ?? undefined}
            value={typeof value === "string" ? value : ""}
            onInput={(event) => onChange(event.currentTarget.value || undefined)}
          />
        )}
      <p class="help">{option.note}</p>
    </div>
  )
}

/** The kinds of option the composer can fill in; the others (lists, people tags…) are for the API. */
const simpleOption = (option: PostingOption) =>
  option.key !== "caption" && (option.kind === "boolean" || option.kind === "select" || option.kind === "text")

export const Composer = (_: PageProps) => {
  const setup = useLoad(async () => {
    const [rules, project] = await Promise.all([
      get<{ data: ReadonlyArray<AccountRules> }>("/api/v1/posting-rules"),
      get<Project>("/api/v1/project")
    ])
    return { accounts: rules.data, project }
  }, [])
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set())
  const [caption, setCaption] = useState("")
  const [verdict, setVerdict] = useState<GuardrailVerdict | null>(null)
  const [configurations, setConfigurations] = useState<Configurations>({})
  const [media, setMedia] = useState<ReadonlyArray<Attached>>([])
  const [when, setWhen] = useState("")
  const [error, setError] = useState<ApiError | null>(null)
  const [created, setCreated] = useState<{ id: string; status: string } | null>(null)
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    if (caption.trim() === "") {
      setVerdict(null)
      return
    }
    const timer = setTimeout(() => {
      checkGuardrails(caption).then(setVerdict, () => setVerdict(null))
    }, checkDelayMillis)
    return () => clearTimeout(timer)
  }, [caption])

  if (setup.value === undefined) return setup.error === undefined ? <Loading /> : <ErrorNote error={setup.error} onRetry={setup.reload} />
  const { accounts, project } = setup.value
  if (accounts.length === 0) return <Empty>The project has no connected account to post to.</Empty>
  const selected = accounts.filter((account) => chosen.has(account.account_id))
  const platforms = [...new Set(selected.map((account) => account.platform))]
  const scheduledUtc = when === "" ? null : zonedToUtc(when, project.timezone)

  const attach = (files: FileList | null) => {
    for (const file of Array.from(files ?? [])) {
      const index = media.length
      const update = (change: Partial<Attached>) =>
        setMedia((previous) => previous.map((item, at) => (at === index ? { ...item, ...change } : item)))
      setMedia((previous) => [...previous, { name: file.name, progress: 0 }])
      upload<{ id: string }>(file, (progress) => update({ progress })).then(
        (uploaded) => update({ id: uploaded.id, progress: 1 }),
        (failure) => update({ error: asApiError(failure).message })
      )
    }
  }

  const submit = async (draft: boolean) => {
    setBusy(true)
    setError(null)
    setCreated(null)
    const configured = Object.fromEntries(
      platforms.flatMap((platform) => {
        const values = Object.entries(configurations[platform] ?? {}).filter(([, value]) => value !== undefined)
        return values.length === 0 ? [] : [[platform, Object.fromEntries(values)]]
      })
    )
    const mediaIds = media.flatMap((item) => (item.id === undefined ? [] : [item.id]))
    try {
      const reply = await post<{ id: string; status: string }>("/api/v1/posts", {
        social_accounts: selected.map((account) => account.account_id),
        ...(caption.trim() === "" ? {} : { caption }),
        ...(mediaIds.length === 0 ? {} : { media_ids: mediaIds }),
        ...(when === "" ? {} : { scheduled_at: `${when}:00` }),
        ...(Object.keys(configured).length === 0 ? {} : { platform_configurations: configured }),
        ...(draft ? { is_draft: true } : {})
      })
      setCreated(reply)
      setCaption("")
      setMedia([])
      setWhen("")
    } catch (failure) {
      setError(asApiError(failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <form class="composer" onSubmit={(event) => { event.preventDefault(); void submit(false) }}>
      <fieldset>
        <legend>Accounts</legend>
        {accounts.map((account) => (
          <div class="field" key={account.account_id}>
            <input
              id={`account-${account.account_id}`}
              type="checkbox"
              checked={chosen.has(account.account_id)}
              onChange={(event) => {
                const next = new Set(chosen)
                if (event.currentTarget.checked) next.add(account.account_id)
                else next.delete(account.account_id)
                setChosen(next)
              }}
            />
            <label for={`account-${account.account_id}`}>{platformName(account.platform)} · {account.ref}</label>
          </div>
        ))}
      </fieldset>

      <div class="field">
        <label for="caption">Caption</label>
        <textarea id="caption" rows={6} value={caption} onInput={(event) => setCaption(event.currentTarget.value)} aria-describedby="caption-counts caption-verdict" />
        {project.signature !== "" && <p class="help">The project signature is appended: “{project.signature}”.</p>}
        <ul id="caption-counts" class="counts">
          {selected.map((account) => (
            <li key={account.account_id}>{platformName(account.platform)} · {account.ref}: <CaptionCount account={account} caption={caption} signature={project.signature} /></li>
          ))}
        </ul>
        <div id="caption-verdict" aria-live="polite">{verdict !== null && <VerdictView verdict={verdict} />}</div>
      </div>

      {platforms.map((platform) => {
        const options = (selected.find((account) => account.platform === platform)?.options ?? []).filter(simpleOption)
        return options.length === 0 ? null : (
          <fieldset key={platform}>
            <legend>{platformName(platform)} options</legend>
            {options.map((option) => (
              <OptionField
                key={option.key}
                platform={platform}
                option={option}
                value={configurations[platform]?.[option.key]}
                onChange={(value) =>
                  setConfigurations((previous) => {
                    const next: Record<string, string | boolean> = { ...previous[platform] }
                    if (value === undefined) delete next[option.key]
                    else next[option.key] = value
                    return { ...previous, [platform]: next }
                  })}
              />
            ))}
          </fieldset>
        )
      })}

      <div class="field">
        <label for="media">Media</label>
        <input id="media" type="file" multiple accept="image/*,video/*" onChange={(event) => attach(event.currentTarget.files)} />
        <ul class="uploads">
          {media.map((item, index) => (
            <li key={index}>
              {item.name}:{" "}
              {item.error !== undefined
                ? <span class="error">{item.error}</span>
                : <progress max={1} value={item.progress} aria-label={`Upload of ${item.name}`}>{Math.round(item.progress * 100)}%</progress>}
              {item.id !== undefined && " uploaded"}
              {item.id !== undefined && <MediaThumbs ids={[item.id]} />}
            </li>
          ))}
        </ul>
      </div>

      <div class="field">
        <label for="when">Publish at ({project.timezone}); leave empty to publish on approval or now</label>
        <input id="when" type="datetime-local" value={when} onInput={(event) => setWhen(event.currentTarget.value)} aria-describedby="when-utc" />
        <p id="when-utc" class="help">{scheduledUtc !== null ? `= ${scheduledUtc.toISOString().slice(0, 16).replace("T", " ")} UTC` : ""}</p>
      </div>

      {error !== null && <ErrorNote error={error} />}
      <Notice text={created === null ? null : `Post created (${created.status.replaceAll("_", " ")}).`} />
      {created !== null && <p><a href={href("post", created.id)}>Open the new post</a></p>}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || selected.length === 0}>{when === "" ? "Post" : "Schedule"}</button>
        <button type="button" disabled={busy || selected.length === 0} onClick={() => submit(true)}>Save as draft</button>
      </div>
    </form>
  )
}
