import type { AddressInfo } from "node:net"
import { signatureHeader, WebhookHeader } from "@herald/webhooks"
import { expect, it } from "vitest"
import { receiver } from "../src/receiver.js"

it("accepts a webhook signed with its secret and refuses one signed with another", async () => {
  const received: Array<string> = []
  const server = receiver("whsec_example", (event) => received.push(event))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const send = (secret: string) => {
    const body = JSON.stringify({ type: "post.published", data: {} })
    const timestamp = Math.floor(Date.now() / 1000)
    return fetch(url, {
      method: "POST",
      body,
      headers: {
        [WebhookHeader.event]: "post.published",
        [WebhookHeader.delivery]: "00000000-0000-4000-8000-000000000001",
        [WebhookHeader.timestamp]: String(timestamp),
        [WebhookHeader.signature]: signatureHeader([secret], timestamp, body)
      }
    })
  }
  try {
    expect((await send("whsec_example")).status).toBe(204)
    const forged = await send("whsec_other")
    expect([forged.status, await forged.text()]).toEqual([400, "no v1 signature matches the body and timestamp for this secret"])
    expect(received).toEqual(["post.published"])
  } finally {
    await new Promise((resolve) => server.close(resolve))
  }
})
