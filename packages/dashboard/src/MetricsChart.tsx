import { platformName } from "./PostPreview.js"
import type { MetricName, MetricsHistory } from "./types.js"

const metrics: ReadonlyArray<MetricName> = ["views", "engagement", "likes", "comments", "shares", "reach", "saves"]

// Dark enough on white for lines and legend marks (≥ 3:1), told apart by colour and order.
const palette = ["#0b57d0", "#b3261e", "#1a7f37", "#8250df", "#9a6700", "#bf3989", "#0550ae", "#57606a", "#953800"]

const width = 240
const height = 96
const pad = { left: 34, right: 6, top: 6, bottom: 16 }

const compact = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 })
const day = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" })
const clock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" })
/** Days on a long span, hours and minutes on a short one (a post's first day). */
const whenLabel = (start: number, end: number) => (end - start < 36 * 3600_000 ? clock : day)

interface Series {
  readonly label: string
  readonly color: string
  /** [time in ms, value]; the last value stands until `until` (a sync found the same numbers). */
  readonly points: ReadonlyArray<readonly [number, number]>
  readonly until: number
}

/** A step line per delivery: numbers change only when a sync sees them change. */
const pathOf = (series: Series, x: (t: number) => number, y: (v: number) => number) => {
  const parts: Array<string> = []
  series.points.forEach(([t, v], index) => {
    if (index === 0) parts.push(`M${x(t).toFixed(1)},${y(v).toFixed(1)}`)
    else parts.push(`H${x(t).toFixed(1)}V${y(v).toFixed(1)}`)
  })
  const last = series.points.at(-1)
  if (last !== undefined) parts.push(`H${x(Math.max(series.until, last[0])).toFixed(1)}`)
  return parts.join("")
}

const Chart = ({ metric, series }: { readonly metric: MetricName; readonly series: ReadonlyArray<Series> }) => {
  const times = series.flatMap((s) => [...s.points.map(([t]) => t), s.until])
  const start = Math.min(...times)
  const end = Math.max(...times, start + 1)
  const top = Math.max(1, ...series.flatMap((s) => s.points.map(([, v]) => v)))
  const x = (t: number) => pad.left + ((t - start) / (end - start)) * (width - pad.left - pad.right)
  const y = (v: number) => height - pad.bottom - (v / top) * (height - pad.top - pad.bottom)
  const summary = series.map((s) => `${s.label}: ${s.points.map(([, v]) => compact.format(v)).join(" → ")}`).join("; ")
  return (
    <figure class="chart">
      <figcaption>{metric}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${metric} over time. ${summary}`}>
        <line class="axis" x1={pad.left} y1={y(0)} x2={width - pad.right} y2={y(0)} />
        <line class="axis" x1={pad.left} y1={pad.top} x2={pad.left} y2={y(0)} />
        <text class="label" x={pad.left - 4} y={pad.top + 8} text-anchor="end">{compact.format(top)}</text>
        <text class="label" x={pad.left - 4} y={y(0)} text-anchor="end">0</text>
        <text class="label" x={pad.left} y={height - 3}>{whenLabel(start, end).format(start)}</text>
        <text class="label" x={width - pad.right} y={height - 3} text-anchor="end">{whenLabel(start, end).format(end)}</text>
        {series.map((s) => (
          <g key={s.label}>
            <path d={pathOf(s, x, y)} fill="none" stroke={s.color} stroke-width={2} />
            {s.points.map(([t, v]) => <circle key={t} cx={x(t)} cy={y(v)} r={2.5} fill={s.color} />)}
          </g>
        ))}
      </svg>
      <ul class="legend">
        {series.map((s) => <li key={s.label}><span style={{ background: s.color }} />{s.label}</li>)}
      </ul>
    </figure>
  )
}

/** A small chart per metric a network reports, a line per delivery (GET /metrics/history). */
export const MetricsCharts = ({ history }: { readonly history: MetricsHistory }) => {
  const charts = metrics.flatMap((metric) => {
    const series = history.data.flatMap((delivery, index): ReadonlyArray<Series> => {
      const points = delivery.points.flatMap((point) => {
        const value = point[metric]
        return value === null ? [] : [[Date.parse(point.taken_at), value] as const]
      })
      return points.length === 0 ? [] : [{
        label: `${platformName(delivery.platform)} @${delivery.username}`,
        color: palette[index % palette.length]!,
        points,
        until: Date.parse(delivery.synced_at)
      }]
    })
    return series.length === 0 ? [] : [{ metric, series }]
  })
  if (charts.length === 0) return <p class="muted">No numbers yet: metrics are synced about 15 minutes after a post goes out, then every few hours.</p>
  return <div class="charts">{charts.map(({ metric, series }) => <Chart key={metric} metric={metric} series={series} />)}</div>
}
