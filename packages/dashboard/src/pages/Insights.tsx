import { useState } from "preact/hooks"
import { get } from "../api.js"
import { href } from "../router.js"
import type { PageProps } from "../routes.js"
import { Empty, ErrorNote, Loading, useLoad, When } from "../ui.js"

/** GET /insights, /top-posts, /best-times and /metrics (docs/analytics.md), as the reviewer's key reads them. */
interface Totals {
  readonly views: number | null
  readonly likes: number | null
  readonly comments: number | null
  readonly shares: number | null
  readonly engagement?: number | null
}
interface Insights {
  readonly since_days: number
  readonly posts: number
  readonly deliveries: number
  readonly by_platform: Readonly<Record<string, { readonly posts: number; readonly deliveries: number; readonly with_metrics: number; readonly totals: Totals }>>
  readonly coverage: { readonly with_metrics: number; readonly awaiting: number; readonly unreportable: number }
}
interface TopPosts {
  readonly data: ReadonlyArray<{ readonly post_id: string; readonly value: number | null; readonly published_at: string; readonly platforms: ReadonlyArray<string> }>
}
interface BestTimes {
  readonly signal: "none" | "thin" | "ok"
  readonly slots: ReadonlyArray<{ readonly weekday: string; readonly hour_utc: number; readonly avg_engagement: number; readonly samples: number }>
}
interface PostMetrics {
  readonly data: ReadonlyArray<Totals & { readonly platform: string; readonly username: string; readonly url: string | null; readonly synced_at: string; readonly unreportable: string | null }>
}

const weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const
const shown = (value: number | null | undefined) => (value === null || value === undefined ? "–" : value.toLocaleString())
const signalText = {
  none: "No engagement recorded yet: the heatmap means nothing so far.",
  thin: "Thin signal: some slots rest on one or two posts.",
  ok: "Every slot shown rests on three posts or more."
} as const

/** Weekday × hour (UTC): each cell's shade is its mean engagement against the best slot's. */
const Heatmap = ({ best }: { readonly best: BestTimes }) => {
  const top = Math.max(1, ...best.slots.map((slot) => slot.avg_engagement))
  const cell = (weekday: string, hour: number) => best.slots.find((slot) => slot.weekday === weekday && slot.hour_utc === hour)
  return (
    <div class="heatmap-wrap">
      <table class="heatmap">
        <caption>Mean engagement by weekday and hour (UTC). {signalText[best.signal]}</caption>
        <thead><tr><th scope="col">Day</th>{Array.from({ length: 24 }, (_, hour) => <th scope="col" key={hour}>{hour}</th>)}</tr></thead>
        <tbody>
          {weekdays.map((weekday) => (
            <tr key={weekday}>
              <th scope="row">{weekday}</th>
              {Array.from({ length: 24 }, (_, hour) => {
                const slot = cell(weekday, hour)
                return (
                  <td
                    key={hour}
                    style={slot === undefined ? undefined : { background: `rgba(9, 105, 218, ${(0.15 + 0.85 * slot.avg_engagement / top).toFixed(2)})` }}
                    title={slot === undefined ? "no posts" : `${slot.avg_engagement} over ${slot.samples} posts`}
                  >
                    <span class="sr-only">{slot === undefined ? "none" : `${slot.avg_engagement} (${slot.samples})`}</span>
                  </td>
                )
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

const OnePost = ({ postId }: { readonly postId: string }) => {
  const metrics = useLoad(() => get<PostMetrics>(`/api/v1/metrics?post_id=${encodeURIComponent(postId)}`), [postId])
  if (metrics.value === undefined) return metrics.error === undefined ? <Loading /> : <ErrorNote error={metrics.error} onRetry={metrics.reload} />
  if (metrics.value.data.length === 0) return <Empty>Not synced yet: numbers are fetched 15 minutes after publishing, then every 6 hours.</Empty>
  return (
    <>
    <table>
      <caption>Post <code>{postId}</code>, as last fetched</caption>
      <thead><tr><th scope="col">Account</th><th scope="col">Views</th><th scope="col">Likes</th><th scope="col">Comments</th><th scope="col">Shares</th><th scope="col">Fetched</th></tr></thead>
      <tbody>
        {metrics.value.data.map((row, index) => (
          <tr key={index}>
            <th scope="row">{row.platform} @{row.username}{row.unreportable === null ? "" : ` (${row.unreportable})`}</th>
            <td>{shown(row.views)}</td><td>{shown(row.likes)}</td><td>{shown(row.comments)}</td><td>{shown(row.shares)}</td>
            <td><When iso={row.synced_at} /></td>
          </tr>
        ))}
      </tbody>
    </table>
    <p><a href={href("post", postId)}>These metrics over time, on the post's page</a></p>
    </>
  )
}

export const Insights = (_: PageProps) => {
  const [days, setDays] = useState(30)
  const [chosen, setChosen] = useState<string | null>(null)
  const data = useLoad(() =>
    Promise.all([
      get<Insights>(`/api/v1/insights?since_days=${days}`),
      get<TopPosts>(`/api/v1/top-posts?since_days=${days}&limit=10`),
      get<BestTimes>(`/api/v1/best-times?since_days=${days}`)
    ]), [days])
  return (
    <>
      <label>Window
        <select value={String(days)} onChange={(event) => setDays(Number((event.currentTarget as HTMLSelectElement).value))}>
          {[7, 30, 90].map((n) => <option key={n} value={String(n)}>last {n} days</option>)}
        </select>
      </label>
      {data.value === undefined
        ? data.error === undefined ? <Loading /> : <ErrorNote error={data.error} onRetry={data.reload} />
        : (() => {
          const [insights, top, best] = data.value
          const platforms = Object.entries(insights.by_platform)
          return (
            <>
              <h2>Totals by platform</h2>
              <p class="help">
                {insights.posts} posts, {insights.deliveries} deliveries; numbers in for {insights.coverage.with_metrics}, awaited for{" "}
                {insights.coverage.awaiting}, never for {insights.coverage.unreportable}.
              </p>
              {platforms.length === 0 ? <Empty>Nothing went out in this window.</Empty> : (
                <table>
                  <thead><tr><th scope="col">Platform</th><th scope="col">Posts</th><th scope="col">Views</th><th scope="col">Likes</th><th scope="col">Comments</th><th scope="col">Shares</th></tr></thead>
                  <tbody>
                    {platforms.map(([platform, row]) => (
                      <tr key={platform}>
                        <th scope="row">{platform}</th><td>{row.posts}</td><td>{shown(row.totals.views)}</td>
                        <td>{shown(row.totals.likes)}</td><td>{shown(row.totals.comments)}</td><td>{shown(row.totals.shares)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              <h2>Top posts by engagement</h2>
              {top.data.length === 0 ? <Empty>No post in this window.</Empty> : (
                <ol>
                  {top.data.map((row) => (
                    <li key={row.post_id}>
                      <button type="button" class="link" aria-pressed={chosen === row.post_id} onClick={() => setChosen(row.post_id)}>
                        {shown(row.value)} on {row.platforms.join(", ")}, <When iso={row.published_at} />
                      </button>
                    </li>
                  ))}
                </ol>
              )}
              {chosen !== null && <OnePost postId={chosen} />}
              <h2>Best times</h2>
              <Heatmap best={best} />
            </>
          )
        })()}
    </>
  )
}
