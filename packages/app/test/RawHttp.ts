import * as Net from "node:net"
import { expect } from "vitest"

/** A reply read off a plain socket, with what happened to the connection on the way. */
export interface RawReply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The reply body as text; JSON replies are parsed into `json`. */
  readonly body: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any
  /** Whether the client got to write its whole body (it does not unless the server reads it all). */
  readonly sentAll: boolean
  /** The first socket error the client saw (ECONNRESET, EPIPE, ...), or null: none. */
  readonly error: string | null
}

export interface RawRequest {
  /** The request line and headers, without the blank line that ends them (added here). */
  readonly head: string
  /** The body, in the chunks it is written in (framing, such as chunked encoding, included). */
  readonly body?: Iterable<Uint8Array>
  /** Read nothing until everything is sent, as many clients do: a reset then loses the reply. */
  readonly readAfterSending?: boolean
}

/** Content-Length framing (or the end of the connection) of a reply that has arrived in `bytes`. */
const parseReply = (bytes: Buffer) => {
  const end = bytes.indexOf("\r\n\r\n")
  if (end === -1) return null
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n")
  const headers = Object.fromEntries(lines.map((line) => {
    const colon = line.indexOf(":")
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]
  }))
  const length = headers["content-length"] === undefined ? null : Number(headers["content-length"])
  const body = bytes.subarray(end + 4)
  return { status: Number(statusLine!.split(" ")[1]), headers, body, complete: length !== null && body.length >= length }
}

/**
 * Sends a request byte for byte over a plain TCP socket and reads the reply: what fetch hides (a
 * reset, a body cut off half-sent, an empty reply) is reported. The client keeps writing after
 * the server half-closes (allowHalfOpen), as a client busy sending does, and it is done once it
 * has written everything (or could not) and the reply has arrived (or the connection closed).
 */
export const rawRequest = (origin: string, request: RawRequest): Promise<RawReply> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(origin)
    const socket = Net.connect({ host: hostname, port: Number(port), allowHalfOpen: true })
    const received: Array<Buffer> = []
    let sentAll = false
    let error: string | null = null
    let sending = true
    let closed = false
    const finish = () => {
      const reply = parseReply(Buffer.concat(received))
      if (sending || !(closed || reply?.complete === true)) return
      socket.destroy()
      if (reply === null) return reject(new Error(`no reply (socket error: ${error ?? "none"}; whole body sent: ${sentAll})`))
      const body = reply.body.toString("utf8")
      const isJson = (reply.headers["content-type"] ?? "").startsWith("application/json")
      resolve({ status: reply.status, headers: reply.headers, body, json: isJson ? JSON.parse(body) : undefined, sentAll, error })
    }
    if (request.readAfterSending === true) socket.pause()
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk)
      finish()
    })
    socket.on("error", (cause: NodeJS.ErrnoException) => {
      error ??= cause.code ?? cause.message
    })
    socket.on("close", () => {
      closed = true
      sending = false
      finish()
    })
    socket.on("end", () => {
      closed = true
      finish()
    })
    socket.once("connect", () => {
      const chunks = (request.body ?? [])[Symbol.iterator]()
      let pending = 0
      let failed = false
      let exhausted = false
      const done = () => {
        sending = false
        sentAll = exhausted && !failed
        socket.resume()
        finish()
      }
      const written = (cause?: Error | null) => {
        pending--
        if (cause !== undefined && cause !== null) failed = true
        if (exhausted && pending === 0) done()
      }
      const write = (): void => {
        if (socket.destroyed) return done()
        for (let next = chunks.next(); !next.done; next = chunks.next()) {
          pending++
          if (!socket.write(next.value, written)) return void socket.once("drain", write)
        }
        exhausted = true
        if (pending === 0) done()
      }
      socket.write(`${request.head}\r\n\r\n`)
      write()
    })
  })

/** `size` bytes of `fill`, in chunks of 64 KiB (one buffer reused: the client holds no more). */
export function* bytesOf(size: number, fill = 0x61): Generator<Uint8Array> {
  const piece = Buffer.alloc(64 * 1024, fill)
  for (let left = size; left > 0; left -= piece.length) yield left >= piece.length ? piece : piece.subarray(0, left)
}

/** The same bytes in chunked transfer encoding (no declared length: the server learns the size as it reads). */
export function* chunked(chunks: Iterable<Uint8Array>): Generator<Uint8Array> {
  for (const chunk of chunks) {
    yield Buffer.from(`${chunk.length.toString(16)}\r\n`)
    yield chunk
    yield Buffer.from("\r\n")
  }
  yield Buffer.from("0\r\n\r\n")
}

/** A refusal as every client must get it: `{ error, code }` read in full, its whole body sent, no reset. */
export const expectRefusal = (reply: RawReply, status: number, code: string, label = "") => {
  expect({ status: reply.status, code: reply.json?.code, error: reply.error, sentAll: reply.sentAll }, label)
    .toEqual({ status, code, error: null, sentAll: true })
  expect(Object.keys(reply.json).sort(), label).toEqual(["code", "error"])
}
