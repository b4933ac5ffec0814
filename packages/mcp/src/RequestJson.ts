import { HttpIncomingMessage, type HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect, Option } from "effect"
import { IncomingMessage } from "node:http"

const parsed = (text: string): Option.Option<unknown> => {
  try {
    return Option.some(text === "" ? null : JSON.parse(text))
  } catch {
    return Option.none()
  }
}

/**
 * A request's JSON body of at most `maxBytes` (an empty body is null), or None when it is not
 * JSON or is larger. Served by node:http, the body is read from the node request itself: the
 * platform's `request.json` (an Effect run to make a cached Effect, a decoding stream, a
 * resource around it) cost about ten times as much, a third of a cheap tool call (bench/README.md,
 * MCP). As the platform's reader does, a body past the limit is not read further: the request is
 * destroyed.
 */
export const readJson = (request: HttpServerRequest.HttpServerRequest, maxBytes: number): Effect.Effect<Option.Option<unknown>> => {
  const source: unknown = NodeHttpServerRequest.toIncomingMessage(request)
  if (!(source instanceof IncomingMessage)) {
    return request.json.pipe(HttpIncomingMessage.withMaxBodySize(Option.some(maxBytes)), Effect.option)
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
    const onEnd = () => finish(parsed(Buffer.concat(chunks, size).toString("utf8")))
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
