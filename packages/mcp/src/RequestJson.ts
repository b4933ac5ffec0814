import { HttpIncomingMessage, type HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect, Option } from "effect"
import { IncomingMessage } from "node:http"

/**
 * Bytes that are not UTF-8 are refused as REST refuses them (malformed_body), never read with
 * U+FFFD in their place: that would store a text its author did not send. A byte order mark is
 * kept, so it is refused as JSON.parse refuses it.
 */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

const parsed = (bytes: Uint8Array): Option.Option<unknown> => {
  try {
    const text = utf8.decode(bytes)
    return Option.some(text === "" ? null : JSON.parse(text))
  } catch {
    return Option.none()
  }
}

/**
 * A request's JSON body of at most `maxBytes` (an empty body is null), or None when it is not
 * UTF-8 JSON or is larger. Served by node:http, the body is read from the node request itself: the
 * platform's `request.json` (an Effect run to make a cached Effect, a decoding stream, a
 * resource around it) cost about ten times as much, a third of a cheap tool call (bench/README.md,
 * MCP). As the platform's reader does, a body past the limit is not read further: the request is
 * destroyed.
 */
export const readJson = (request: HttpServerRequest.HttpServerRequest, maxBytes: number): Effect.Effect<Option.Option<unknown>> => {
  const source: unknown = NodeHttpServerRequest.toIncomingMessage(request)
  if (!(source instanceof IncomingMessage)) {
    return request.arrayBuffer.pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(maxBytes)),
      Effect.option,
      Effect.map(Option.flatMap((buffer) => parsed(new Uint8Array(buffer))))
    )
  }
  return Effect.async<Option.Option<unknown>>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      finish(Option.none())
      source.destroy()
    }
    const onEnd = () => finish(parsed(Buffer.concat(chunks, size)))
    const onError = () => finish(Option.none())
    const stop = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    const finish = (body: Option.Option<unknown>) => {
      stop()
      resume(Effect.succeed(body))
    }
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onError)
    return Effect.sync(stop)
  })
}
