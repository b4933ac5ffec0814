import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { checkGuardrails, noGuardrails } from "@herald/core"
import { OutboundGuard } from "@herald/outbound"
import { type Duration, Effect, Layer, Option, Redacted } from "effect"
import { llmClassifier } from "../src/index.js"

// A fake OpenAI-compatible endpoint on loopback: each test sets how it answers.
interface ChatRequest {
  readonly model: string
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string }>
}
type Answer = (request: { readonly body: ChatRequest; readonly authorization: string | undefined }, response: ServerResponse) => void
let answer: Answer = () => {}
const seen: Array<{ readonly body: ChatRequest; readonly authorization: string | undefined; readonly path: string | undefined }> = []
let server: Server
let port = 0

const completion = (content: string) => JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content } }] })
const reply = (response: ServerResponse, status: number, body: string) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(body)
}

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response) => {
    let text = ""
    request.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
    request.on("end", () => {
      const seenRequest = { body: JSON.parse(text) as ChatRequest, authorization: request.headers.authorization, path: request.url }
      seen.push(seenRequest)
      answer(seenRequest, response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const secret = "sk-test-do-not-leak"
const classifier = (timeout: Duration.DurationInput = "2 seconds") =>
  llmClassifier({ url: `http://127.0.0.1:${port}/v1/`, model: "brand-safety-1", apiKey: Option.some(Redacted.make(secret)), timeout }).pipe(
    Layer.provide(Layer.suspend(() => OutboundGuard.layer({ loopbackPorts: [port], production: false })))
  )

const settings = { ...noGuardrails, banned_topics: ["politics", "crypto"], tone: "calm", topic_terms: { crypto: ["bitcoin"] } }
const check = (text: string, timeout?: Duration.DurationInput) =>
  checkGuardrails([{ field: "caption", text }], settings, { postsToday: null }).pipe(Effect.provide(classifier(timeout)))

describe("the LLM-backed classifier, against a loopback OpenAI-compatible server", () => {
  it.effect("asks the model with the key and deadline, and enforces what it answers", () =>
    Effect.gen(function*() {
      seen.length = 0
      answer = (_request, response) =>
        reply(response, 200, completion(JSON.stringify({
          topics: [{ topic: "politics", score: 0.93 }, { topic: "crypto", score: 0.2 }],
          tone: { fits: false, score: 0.81, reason: "it shouts at the reader" }
        })))
      const verdict = yield* check("VOTE FOR OUR SENATOR")
      expect(seen).toHaveLength(1)
      expect(seen[0]!.path).toBe("/v1/chat/completions")
      expect(seen[0]!.authorization).toBe(`Bearer ${secret}`)
      expect(seen[0]!.body.model).toBe("brand-safety-1")
      expect(JSON.parse(seen[0]!.body.messages[1]!.content)).toEqual({ topics: ["politics", "crypto"], tone: "calm", post: "VOTE FOR OUR SENATOR" })
      expect(verdict.allowed).toBe(false)
      expect(verdict.rules_checked).toEqual(["banned_topics", "tone"])
      expect(verdict.rules_skipped).toEqual([])
      expect(verdict.violations).toEqual([
        { rule: "banned_topics", detail: "caption is about banned topic \"politics\" (score 0.93)", field: "caption", topic: "politics", score: 0.93 },
        { rule: "tone", detail: "caption does not fit the tone \"calm\" (score 0.81): it shouts at the reader", field: "caption", score: 0.81 }
      ])
    }))

  it.effect("applies the project's topic_terms itself, asking the model only about the rest", () =>
    Effect.gen(function*() {
      seen.length = 0
      answer = (_request, response) => reply(response, 200, completion(JSON.stringify({ topics: [{ topic: "politics", score: 0.1 }], tone: { fits: true, score: 0.1, reason: "" } })))
      const verdict = yield* check("buy bitcoin today")
      expect(JSON.parse(seen[0]!.body.messages[1]!.content).topics).toEqual(["politics"])
      expect(verdict.violations.map(({ topic }) => topic)).toEqual(["crypto"])
    }))

  const failsOpen = (name: string, respond: Answer, reason: string, timeout?: Duration.DurationInput) =>
    it.effect(`fails open when ${name}: both rules skipped with the reason, nothing blocked, no key in it`, () =>
      Effect.gen(function*() {
        answer = respond
        const verdict = yield* check("VOTE FOR OUR SENATOR", timeout)
        expect(verdict).toEqual({
          allowed: true,
          violations: [],
          rules_checked: [],
          rules_skipped: ["banned_topics", "tone"],
          skipped: [
            { rule: "banned_topics", reason: `the classifier could not answer: ${reason}` },
            { rule: "tone", reason: `the classifier could not answer: ${reason}` }
          ]
        })
        expect(JSON.stringify(verdict)).not.toContain(secret)
      }))

  failsOpen(
    "the endpoint misses the deadline",
    (_request, response) => setTimeout(() => reply(response, 200, completion("{}")), 1_500),
    "the classifier endpoint did not answer before the deadline",
    "200 millis"
  )
  failsOpen("the model's content is not JSON", (_request, response) => reply(response, 200, completion("Sure! It is about politics.")), "the classifier model did not answer the JSON asked for")
  failsOpen(
    "the model's JSON has the wrong shape",
    (_request, response) => reply(response, 200, completion(JSON.stringify({ topics: "politics", tone: null }))),
    "the classifier model did not answer the JSON asked for"
  )
  failsOpen("the body is not a chat completion", (_request, response) => reply(response, 200, "<html>gateway</html>"), "the classifier endpoint's reply is not a chat completion")
  failsOpen("the endpoint answers 500", (_request, response) => reply(response, 500, JSON.stringify({ error: { message: `bad key ${secret}` } })), "the classifier endpoint answered HTTP 500")
})
