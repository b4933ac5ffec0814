import { useState } from "preact/hooks"
import { get } from "../api.js"
import { platformName } from "../PostPreview.js"
import { href } from "../router.js"
import type { PageProps } from "../routes.js"
import { type PostList, type PostStatus, postStatuses } from "../types.js"
import { Empty, ErrorNote, Loading, StatusBadge, statusName, useLoad, When } from "../ui.js"

/** Posts, newest first, filtered by status (GET /posts?status=). */
export const Posts = (_: PageProps) => {
  const [status, setStatus] = useState<PostStatus | "">("")
  const list = useLoad(() => get<PostList>(`/api/v1/posts?limit=100${status === "" ? "" : `&status=${status}`}`), [status])
  return (
    <>
      <div class="filters" role="group" aria-label="Filter by status">
        <label for="status-filter">Status</label>
        <select id="status-filter" value={status} onChange={(event) => setStatus(event.currentTarget.value as PostStatus | "")}>
          <option value="">All</option>
          {postStatuses.map((candidate) => <option key={candidate} value={candidate}>{statusName(candidate)}</option>)}
        </select>
      </div>
      {list.error !== undefined && <ErrorNote error={list.error} onRetry={list.reload} />}
      {list.value === undefined
        ? list.error === undefined && <Loading />
        : list.value.data.length === 0
        ? <Empty>{status === "" ? "No posts yet. Write one in the Composer." : `No post is ${statusName(status).toLowerCase()}.`}</Empty>
        : (
          <table class="posts">
            <caption class="visually-hidden">Posts, newest first</caption>
            <thead>
              <tr><th scope="col">Caption</th><th scope="col">Status</th><th scope="col">Accounts</th><th scope="col">Created</th></tr>
            </thead>
            <tbody>
              {list.value.data.map((item) => (
                <tr key={item.id}>
                  <td><a href={href("post", item.id)}>{(item.caption ?? "(no caption)").slice(0, 80) || "(no caption)"}</a></td>
                  <td><StatusBadge status={item.status} /></td>
                  <td>{item.targets.map((target) => `${platformName(target.platform)} @${target.username}`).join(", ")}</td>
                  <td><When iso={item.created_at} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
    </>
  )
}
