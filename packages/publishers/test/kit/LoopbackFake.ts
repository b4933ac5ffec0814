import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A platform's fake as an HTTP server on 127.0.0.1 (a free port): started, stopped with the
 * replies it held open on purpose (a call whose answer never comes), and a crash of its own
 * answered 500 in the platform's error body.
 */
export abstract class LoopbackFake {
  private server: Server | undefined
  private base = ""
  /** Replies held open on purpose; destroyed at stop. */
  protected readonly hung: Array<ServerResponse> = []

  get url(): string {
    return this.base
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<unknown>

  /** Answers a crash of the fake itself, in the platform's error body. */
  protected abstract crashed(res: ServerResponse, error: unknown): void

  start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) this.crashed(res, error)
        else res.destroy()
      })
    })
    return new Promise((resolve) => {
      this.server!.listen(0, "127.0.0.1", () => {
        this.base = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`
        resolve(this)
      })
    })
  }

  stop(): Promise<void> {
    for (const res of this.hung.splice(0)) res.destroy()
    this.server?.closeAllConnections()
    return new Promise((resolve) => this.server === undefined ? resolve() : this.server.close(() => resolve()))
  }
}
