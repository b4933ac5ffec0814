import { verify } from "@herald/webhooks"
import { createServer } from "node:http"

/** Checks each webhook over its raw bytes with the endpoint's secret, then hands the event on. */
export const receiver = (secret: string, onEvent: (event: string, body: unknown) => void) =>
  createServer(async (request, response) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    const checked = verify(body, request.headers, secret)
    if (checked._tag === "Left") return void response.writeHead(400).end(checked.left.message)
    onEvent(checked.right.event, JSON.parse(body.toString("utf8")))
    response.writeHead(204).end()
  })

if (import.meta.url === `file://${process.argv[1]}`) {
  receiver(process.env.HERALD_WEBHOOK_SECRET ?? "", (event, body) => console.log(event, body)).listen(Number(process.env.PORT ?? 4000))
}
