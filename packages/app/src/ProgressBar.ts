import { Effect } from "effect"

/** `[#########-----------]  45% 450/1000 rows`: the bar for `done` of `total`, `width` cells wide. */
export const progressLine = (done: number, total: number, width = 30): string => {
  const share = total === 0 ? 1 : Math.min(done / total, 1)
  const filled = Math.round(share * width)
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}% ${done}/${total} rows`
}

/**
 * Progress on stderr, so stdout keeps only the summary a script may read. On a terminal the bar
 * is redrawn in place; elsewhere (a pipe, a log file, CI) each step is a line of its own, since a
 * carriage return there only garbles the file.
 */
export const reportProgress = (done: number, total: number): Effect.Effect<void> =>
  Effect.sync(() => {
    const line = progressLine(done, total)
    if (process.stderr.isTTY) process.stderr.write(`\r${line}${done >= total ? "\n" : ""}`)
    else process.stderr.write(`${line}\n`)
  })
