import { useEffect, useRef, useState } from "preact/hooks"
import { get, post } from "../api.js"
import { PostPreview } from "../PostPreview.js"
import type { PageProps } from "../routes.js"
import { canApprove } from "../session.js"
import type { Post, PostList } from "../types.js"
import { asApiError, Empty, ErrorNote, Loading, Notice, When } from "../ui.js"
import { CaptionVerdict } from "../Verdict.js"
import type { ApiError } from "../api.js"

/** How often the queue asks for new holds: the REST API has no push, and a hold is rarely urgent to the second. */
const pollMillis = 5000

const decide = (id: string, decision: "approve" | "reject", reason?: string) =>
  post(`/api/v1/posts/${id}/approve`, reason === undefined ? { decision } : { decision, reason })

const HeldPost = ({ held, decides, selected, onSelect, onDecided }: {
  readonly held: Post
  readonly decides: boolean
  readonly selected: boolean
  readonly onSelect: (selected: boolean) => void
  readonly onDecided: (message: string) => void
}) => {
  const [rejecting, setRejecting] = useState(false)
  const [reason, setReason] = useState("")
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const run = async (decision: "approve" | "reject") => {
    setBusy(true)
    setError(null)
    try {
      await decide(held.id, decision, decision === "reject" && reason.trim() !== "" ? reason.trim() : undefined)
      onDecided(decision === "approve" ? "Post approved." : "Post rejected.")
    } catch (failure) {
      setError(asApiError(failure))
    } finally {
      setBusy(false)
    }
  }
  const heading = `held-${held.id}`
  return (
    <li class="card held" aria-labelledby={heading}>
      <div class="card-head">
        {decides && (
          <input type="checkbox" checked={selected} onChange={(event) => onSelect(event.currentTarget.checked)} aria-label="Select for bulk approval" />
        )}
        <h2 id={heading}>
          {held.created_by === "agent" ? "An agent's post" : "A person's post"} for {held.targets.length} account{held.targets.length === 1 ? "" : "s"}
        </h2>
        <span class="muted">held <When iso={held.created_at} />{held.scheduledAt !== null && <> · scheduled for <When iso={held.scheduledAt} /></>}</span>
      </div>
      <PostPreview post={held} />
      <CaptionVerdict caption={held.caption} />
      {error !== null && <ErrorNote error={error} />}
      {decides && (
        <div class="actions">
          <button type="button" class="primary" disabled={busy} onClick={() => run("approve")}>Approve</button>
          {!rejecting && <button type="button" disabled={busy} onClick={() => setRejecting(true)}>Reject…</button>}
          {rejecting && (
            <form class="reject" onSubmit={(event) => { event.preventDefault(); void run("reject") }}>
              <label for={`reason-${held.id}`}>Reason for rejecting (the agent sees it)</label>
              <textarea id={`reason-${held.id}`} maxLength={2000} value={reason} onInput={(event) => setReason(event.currentTarget.value)} />
              <button type="submit" class="danger" disabled={busy}>Reject post</button>
              <button type="button" onClick={() => setRejecting(false)}>Cancel</button>
            </form>
          )}
        </div>
      )}
    </li>
  )
}

export const Queue = ({ session }: PageProps) => {
  const decides = canApprove(session)
  const [posts, setPosts] = useState<ReadonlyArray<Post> | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())
  const [notice, setNotice] = useState<string | null>(null)
  const known = useRef<ReadonlySet<string> | null>(null)

  const refresh = async () => {
    try {
      const list = await get<PostList>("/api/v1/posts?status=pending_approval&limit=100")
      const ids = new Set(list.data.map((held) => held.id))
      const arrived = known.current === null ? 0 : [...ids].filter((id) => !known.current!.has(id)).length
      if (arrived > 0) setNotice(`${arrived} new held post${arrived === 1 ? "" : "s"}.`)
      known.current = ids
      setPosts(list.data)
      setSelected((previous) => new Set([...previous].filter((id) => ids.has(id))))
      setError(null)
    } catch (failure) {
      setError(asApiError(failure))
    }
  }
  useEffect(() => {
    void refresh()
    const timer = setInterval(() => void refresh(), pollMillis)
    return () => clearInterval(timer)
  }, [])

  const bulkApprove = async () => {
    const ids = [...selected]
    const outcomes = await Promise.allSettled(ids.map((id) => decide(id, "approve")))
    const failed = outcomes.filter((outcome) => outcome.status === "rejected").length
    setNotice(failed === 0 ? `${ids.length} posts approved.` : `${ids.length - failed} approved, ${failed} could not be (decided elsewhere or changed).`)
    setSelected(new Set())
    await refresh()
  }

  if (posts === null) return error === null ? <Loading /> : <ErrorNote error={error} onRetry={refresh} />
  return (
    <>
      <Notice text={notice} />
      {error !== null && <ErrorNote error={error} onRetry={refresh} />}
      {!decides && <p class="muted">Your key cannot approve (it lacks posts:approve): the queue is read-only for you.</p>}
      {posts.length === 0
        ? <Empty>No post is waiting for approval. New holds appear here on their own.</Empty>
        : (
          <>
            {decides && (
              <div class="bulk">
                <label>
                  <input
                    type="checkbox"
                    checked={selected.size === posts.length}
                    onChange={(event) => setSelected(event.currentTarget.checked ? new Set(posts.map((held) => held.id)) : new Set())}
                  />{" "}
                  Select all ({posts.length})
                </label>
                <button type="button" class="primary" disabled={selected.size === 0} onClick={bulkApprove}>
                  Approve selected ({selected.size})
                </button>
              </div>
            )}
            <ul class="cards">
              {posts.map((held) => (
                <HeldPost
                  key={held.id}
                  held={held}
                  decides={decides}
                  selected={selected.has(held.id)}
                  onSelect={(on) => setSelected((previous) => {
                    const next = new Set(previous)
                    if (on) next.add(held.id)
                    else next.delete(held.id)
                    return next
                  })}
                  onDecided={(message) => {
                    setNotice(message)
                    void refresh()
                  }}
                />
              ))}
            </ul>
          </>
        )}
    </>
  )
}
