import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { PostId } from "@herald/core"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest"
import { HeraldApi, PostNotFoundError, PostSupersededError, Unauthorized } from "../src/index.js"
import { startServer, type TestServer } from "./TestServer.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

/** HttpApiClient on the exported HeraldApi, signed in with the agent key. */
const client = () =>
  HttpApiClient.make(HeraldApi, {
    baseUrl: server.origin,
    transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(server.tokens.agent.key))
  }).pipe(Effect.provide(FetchHttpClient.layer))

const unknownPost = PostId.make("00000000-0000-4000-8000-0000000000ff")

describe("the typed client (HttpApiClient.make(HeraldApi))", () => {
  it("tells a 404 post_not_found from a 404 post_superseded by code, each decoded into its own class", async () => {
    const [missing, superseded] = await Effect.runPromise(Effect.gen(function*() {
      const api = yield* client()
      const created = yield* api.posts.create({ payload: { caption: "Typed client", social_accounts: ["x:acme"] } })
      yield* api.posts.edit({ path: { id: PostId.make(created.id) }, payload: { caption: "Typed client, edited" } })
      return [
        yield* Effect.flip(api.posts.remove({ path: { id: unknownPost } })),
        yield* Effect.flip(api.posts.remove({ path: { id: PostId.make(created.id) } }))
      ] as const
    }))

    // The error's type is the union of the endpoint's declared replies (and the client's own
    // transport and decoding errors, which carry no code); code narrows it to one reply class.
    const described = (error: typeof missing) => {
      if (!("code" in error) || error instanceof Unauthorized) return "not a domain reply"
      switch (error.code) {
        case "post_not_found":
          expectTypeOf(error).toEqualTypeOf<PostNotFoundError>()
          return `not found: ${error.error}`
        case "post_superseded":
          expectTypeOf(error).toEqualTypeOf<PostSupersededError>()
          return `superseded: ${error.error}`
        default:
          return `other: ${error.code}`
      }
    }
    expect(missing).toBeInstanceOf(PostNotFoundError)
    expect(superseded).toBeInstanceOf(PostSupersededError)
    expect(described(missing)).toBe(`not found: post ${unknownPost} not found in this project`)
    expect(described(superseded)).toMatch(/^superseded: post .* was edited and replaced by post /)
  })
})
