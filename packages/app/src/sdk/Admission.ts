/** A fetch-style handler, as createHerald serves one. */
export type FetchHandler = (request: Request) => Promise<Response>

/** The reply to a request that arrives once close() began (docs/api.md: 503 shutting_down). */
const shuttingDown = () =>
  Response.json({ error: "Herald is shutting down", code: "shutting_down" }, { status: 503, headers: { connection: "close" } })

/**
 * Which requests Herald still takes: every one until close() begins, none after. Counts those in
 * flight so close() can wait for them (a reply counts until its handler answered; the bodies Herald
 * answers are built before then).
 */
export class Admission {
  private inFlight = 0
  private closing = false
  private readonly idle: Array<() => void> = []

  guard(handler: FetchHandler): FetchHandler {
    return async (request) => {
      if (this.closing) return shuttingDown()
      this.inFlight++
      try {
        return await handler(request)
      } finally {
        if (--this.inFlight === 0) this.idle.splice(0).forEach((resolve) => resolve())
      }
    }
  }

  /** Stops taking requests; resolves true once none is in flight, false if `deadline` (ms) came first. */
  close(deadline: number): Promise<boolean> {
    this.closing = true
    if (this.inFlight === 0) return Promise.resolve(true)
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), deadline)
      this.idle.push(() => {
        clearTimeout(timer)
        resolve(true)
      })
    })
  }
}
