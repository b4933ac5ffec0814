import autocannon from "autocannon"

/** What a load measured: requests/s, latency percentiles (ms), and the requests that did not succeed. */
export interface Figures {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
  /** The server's CPU time per request (µs) over the measured load, when `cpuMs` was given and could be read. */
  readonly cpuMicrosPerRequest: number | null
}

/** Seconds each measured load runs (BENCH_SECONDS). */
export const seconds = Number(process.env.BENCH_SECONDS ?? 8)

/**
 * Seconds of the same load sent first and not measured, to every server alike: a process's first
 * second runs well below its steady rate while the JIT compiles the hot paths, which says nothing
 * about either server once it runs (bench/README.md, HTTP).
 */
export const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2)

/**
 * autocannon at `connections` for `seconds`, after the warm-up. `cpuMs` reads the server's CPU time
 * so far (ProcessCpu.ts), to report what each request cost it.
 */
export const load = async (
  url: string,
  connections: number,
  { cpuMs, ...options }: {
    readonly method: "GET" | "POST"
    readonly headers: Record<string, string>
    readonly body?: string
    readonly cpuMs?: () => number | null
  }
): Promise<Figures> => {
  if (warmupSeconds > 0) await autocannon({ url, connections, duration: warmupSeconds, ...options })
  const cpuBefore = cpuMs?.() ?? null
  const result = await autocannon({ url, connections, duration: seconds, ...options })
  const cpuAfter = cpuMs?.() ?? null
  return {
    cpuMicrosPerRequest: cpuBefore === null || cpuAfter === null || result.requests.total === 0
      ? null
      : (1000 * (cpuAfter - cpuBefore)) / result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts
  }
}
