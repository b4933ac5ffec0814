import { useEffect, useState } from "preact/hooks"
import { type ApiError, del, get, patch, post } from "../api.js"
import { MetricsCharts } from "../MetricsChart.js"
import { PostPreview, platformName } from "../PostPreview.js"
import { href, navigate } from "../router.js"
import type { PageProps } from "../routes.js"
import type { MetricsHistory, Post, Receipt, ReceiptEntry } from "../types.js"
import { asApiError, Empty, ErrorNote, Loading, Notice, StatusBadge, useLoad, When } from "../ui.js"

/** How often a post that is going out is read again, so its receipt fills in as the deliveries finish. */
const followMillis = 2000

/** What can still be edited: a post that has not gone out (the API's PATCH rule). */
const editable = (status: Post["status"]) => status === "pending_approval" || status === "draft" || status === "scheduled"

const errorText = (entry: ReceiptEntry) =>
  entry.error === null ? null : typeof entry.error === "string" ? entry.error : entry.error.message ?? entry.error.code ?? "failed"

const ReceiptRow = ({ entry, onChanged }: { readonly entry: ReceiptEntry; readonly onChanged: (message: string) => void }) => {
  const [confirming, setConfirming] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const act = async (action: "retry" | "takedown") => {
    setError(null)
    try {
      await post(`/api/v1/post-results/${entry.id}/${action}`)
      setConfirming(false)
      onChanged(action === "retry" ? "Delivery queued again." : `Taken down from ${platformName(entry.platform)}.`)
    } catch (failure) {
      setError(asApiError(failure))
    }
  }
  return (
    <tr>
      <th scope="row">{platformName(entry.platform)} @{entry.username}</th>
      <td><StatusBadge status={entry.status} /></td>
      <td>{entry.retries}</td>
      <td>{entry.url !== null ? <a href={entry.url} target="_blank" rel="noreferrer noopener">Live post</a> : "—"}</td>
      <td>
        {entry.error_category !== null && <strong>{entry.error_category}</strong>}
        {errorText(entry) !== null && <span class="detail"> {errorText(entry)}</span>}
        {entry.taken_down_at !== null && <span>taken down <When iso={entry.taken_down_at} /></span>}
      </td>
      <td>
        {entry.status === "failed" && <button type="button" onClick={() => act("retry")}>Retry</button>}
        {entry.status === "success" && !confirming && <button type="button" class="danger" onClick={() => setConfirming(true)}>Take down…</button>}
        {confirming && (
          <div role="alertdialog" aria-labelledby={`confirm-${entry.id}`} class="confirm">
            <p id={`confirm-${entry.id}`}>
              This deletes the post from {platformName(entry.platform)} @{entry.username}. It cannot be undone: its likes, replies and shares are lost,
              and Herald cannot publish it there again.
            </p>
            <button type="button" class="danger" onClick={() => act("takedown")}>Take it down</button>
            <button type="button" onClick={() => setConfirming(false)}>Keep it</button>
          </div>
        )}
        {error !== null && <ErrorNote error={error} />}
      </td>
    </tr>
  )
}

const Editor = ({ current, onSaved }: { readonly current: Post; readonly onSaved: (id: string) => void }) => {
  const [caption, setCaption] = useState(current.caption ?? "")
  const [error, setError] = useState<ApiError | null>(null)
  const save = async (event: Event) => {
    event.preventDefault()
    setError(null)
    try {
      const edited = await patch<{ id: string }>(`/api/v1/posts/${current.id}`, { caption })
      onSaved(edited.id)
    } catch (failure) {
      setError(asApiError(failure))
    }
  }
  return (
    <form class="editor" onSubmit={save}>
      <label for="edit-caption">Caption</label>
      <textarea id="edit-caption" rows={5} value={caption} onInput={(event) => setCaption(event.currentTarget.value)} />
      <p class="help">Saving makes a new version of the post (the API's PATCH); a held post is held again for approval.</p>
      {error !== null && <ErrorNote error={error} />}
      <button type="submit" class="primary">Save changes</button>
    </form>
  )
}

/** One post: its preview, its receipt (a row per account), and what can still be done with it. */
export const PostDetail = ({ params }: PageProps) => {
  const id = params[0] ?? ""
  const [notice, setNotice] = useState<string | null>(null)
  const [actionError, setActionError] = useState<ApiError | null>(null)
  const [editing, setEditing] = useState(false)
  const loaded = useLoad(async () => {
    const [receipt, post] = await Promise.all([
      get<Receipt>(`/api/v1/post-results?post_id=${encodeURIComponent(id)}`),
      get<Post>(`/api/v1/posts/${encodeURIComponent(id)}`)
    ])
    // Numbers exist only for what went out; a held or draft post has none to ask for.
    const wentOut = receipt.data.some((entry) => entry.status === "success" || entry.status === "taken_down")
    const history = wentOut ? await get<MetricsHistory>(`/api/v1/metrics/history?post_id=${encodeURIComponent(id)}`) : null
    return { receipt, history, post }
  }, [id])
  const goingOut = loaded.value?.receipt.post_status === "processing"
  useEffect(() => {
    if (!goingOut) return
    const timer = setTimeout(() => void loaded.reload(), followMillis)
    return () => clearTimeout(timer)
  }, [loaded.value])
  if (loaded.value === undefined) return loaded.error === undefined ? <Loading /> : <ErrorNote error={loaded.error} onRetry={loaded.reload} />
  const { history, receipt, post: current } = loaded.value
  const remove = async () => {
    setActionError(null)
    try {
      await del(`/api/v1/posts/${id}`)
      setNotice("Post deleted.")
      navigate("posts")
    } catch (failure) {
      setActionError(asApiError(failure))
    }
  }
  return (
    <>
      <p><a href={href("posts")}>← All posts</a></p>
      <Notice text={notice} />
      <p>Status: <StatusBadge status={receipt.post_status} /></p>
      {current.rejectionReason != null && <p>Rejected: {current.rejectionReason}</p>}
      <PostPreview post={current} />
      {actionError !== null && <ErrorNote error={actionError} />}
      {editable(current.status) && (
        <div class="actions">
          {!editing && <button type="button" onClick={() => setEditing(true)}>Edit</button>}
          <button type="button" class="danger" onClick={remove}>{current.status === "scheduled" ? "Unschedule and delete" : "Delete"}</button>
        </div>
      )}
      {editing && <Editor current={current} onSaved={(newId) => navigate("post", newId)} />}
      <h2>Receipt</h2>
      {receipt.data.length === 0
        ? <Empty>No delivery yet.</Empty>
        : (
          <table class="receipt">
            <thead>
              <tr>
                <th scope="col">Account</th><th scope="col">Status</th><th scope="col">Retries</th><th scope="col">Live URL</th>
                <th scope="col">Error</th><th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {receipt.data.map((entry) => (
                <ReceiptRow key={entry.id} entry={entry} onChanged={(message) => { setNotice(message); void loaded.reload() }} />
              ))}
            </tbody>
          </table>
        )}
      {history !== null && (
        <>
          <h2>Metrics over time</h2>
          <MetricsCharts history={history} />
        </>
      )}
    </>
  )
}
