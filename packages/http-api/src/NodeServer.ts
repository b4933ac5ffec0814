import { createServer, maxHeaderSize, type Server, type ServerResponse, STATUS_CODES } from "node:http"
import type { Socket } from "node:net"
import { lingerMillis } from "./BodyDrain.js"

/** What node hands a `clientError` listener: its parser's error, with the bytes it was parsing. */
interface ClientError extends Error {
  readonly code?: string
  readonly reason?: string
  readonly rawPacket?: Buffer
  readonly bytesParsed?: number
}

/**
 * Node reports a request line over the head limit as a header overflow too. Where it stopped, the
 * bytes it was given tell them apart: they start a request (a method and a space) and no line of
 * them has ended yet. (A request line that arrived in several reads is only seen in its last one,
 * which does not start a request: it is answered as an oversized head.)
 */
const inRequestLine = (error: ClientError) => {
  const packet = error.rawPacket
  if (packet === undefined) return false
  const parsed = packet.subarray(0, error.bytesParsed ?? packet.length)
  return /^[A-Z]+ /.test(parsed.subarray(0, 24).toString("latin1")) && !parsed.includes(0x0a)
}

const replyTo = (error: ClientError): { readonly status: number; readonly error: string; readonly code: string } => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return inRequestLine(error)
        ? { status: 414, error: `the request line (method and URL) is longer than ${maxHeaderSize} bytes`, code: "uri_too_long" }
        : { status: 431, error: `the request head (request line and headers) is larger than ${maxHeaderSize} bytes`, code: "request_header_too_large" }
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, error: "the request did not arrive in time", code: "request_timeout" }
    default:
      return { status: 400, error: `the request is not valid HTTP/1.1 (${error.reason ?? error.code ?? "unreadable"})`, code: "malformed_request" }
  }
}

/** Sockets already answered: node's parser reports its error again for every later read. */
const answered = new WeakSet<Socket>()

/**
 * Answers a request node could not parse with `{ error, code }`, as every other error is answered,
 * in place of node's bare status line. The reply is written and the connection half-closed, then
 * what the client still sends is read (and dropped) for lingerMillis before the socket is
 * destroyed: a client still sending would otherwise get a reset, and with it lose the reply.
 * A socket that can no longer be written, or whose in-flight response has started (node's own
 * test), is only destroyed.
 */
const answerClientError = (error: ClientError, socket: Socket) => {
  if (answered.has(socket)) return
  answered.add(socket)
  // The response node is writing on this socket, if any (node's own clientError reply checks it too).
  const inFlight = (socket as Socket & { readonly _httpMessage?: ServerResponse | null })._httpMessage
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy()
    return
  }
  const { status, ...body } = replyTo(error)
  const json = JSON.stringify(body)
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(json)}\r\nconnection: close\r\n\r\n${json}`
  )
  const linger = setTimeout(() => socket.destroy(), lingerMillis).unref()
  socket.once("close", () => clearTimeout(linger))
}

/**
 * The node:http server Herald serves on (the app and every test server): node's own, with requests
 * it cannot parse (a head over its limit, a request line too long, broken framing, a timeout)
 * answered with a JSON body like every other error, and without cutting a client that is still
 * sending.
 */
export const createNodeServer = (): Server =>
  // An idle keep-alive connection is held longer than the clients and load balancers in front
  // usually hold theirs (60 s), so the server is never the side that closes one just as a request
  // is sent on it (the client would see ECONNRESET on a POST it cannot safely retry).
  createServer({ keepAliveTimeout: 65_000, headersTimeout: 66_000 }).on("clientError", answerClientError)
