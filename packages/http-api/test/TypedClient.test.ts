import { FetchHttpClient, type HttpApi, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { PostId } from "@herald/core"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest"
import {
  type AdminConflict,
  AdminNotFound,
  type AdminRefused,
  AdminUnauthorized,
  type HeraldAdminApi,
  HeraldApi,
  NotFound,
  PostNotFoundError,
  PostSupersededError,
  Unauthorized
} from "../src/index.js"
import { startServer, type TestServer } from "./TestServer.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

/** HttpApiClient on the exported HeraldApi, signed in with the agent key (or the key given, or none). */
const client = (key: string | null = server.tokens.agent.key) =>
  HttpApiClient.make(HeraldApi, {
    baseUrl: server.origin,
    transformClient: key === null ? undefined : HttpClient.mapRequest(HttpClientRequest.bearerToken(key))
  }).pipe(Effect.provide(FetchHttpClient.layer))

/** What HttpApiClient.make(HeraldAdminApi) gives (only its type is used here: this server serves the REST API alone). */
type AdminClient = typeof HeraldAdminApi extends HttpApi.HttpApi<string, infer Groups, infer E, infer _R> ? HttpApiClient.Client<Groups, E, never>
  : never

/** The codes a client's error union can carry (its transport and decoding errors carry none). */
type CodeOf<E> = E extends { readonly code: infer Code } ? Code : never

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

  it("tells a missing, an invalid and a revoked key apart by the 401's code, a literal union", async () => {
    const refusals = await Effect.runPromise(Effect.forEach(
      [null, "hk_agent_" + "A".repeat(40), server.tokens.revoked.key],
      (key) => Effect.flatMap(client(key), (api) => Effect.flip(api.accounts.project()))
    ))
    const described = (error: typeof refusals[number]) => {
      if (!(error instanceof Unauthorized)) return "not a 401"
      expectTypeOf(error.code).toEqualTypeOf<"missing_api_key" | "invalid_api_key" | "revoked_api_key">()
      switch (error.code) {
        case "missing_api_key":
          return "send a key"
        case "invalid_api_key":
          return "check the key"
        case "revoked_api_key":
          return "make a new key"
      }
    }
    expect(refusals.map(described)).toEqual(["send a key", "check the key", "make a new key"])
  })

  it("gives each API its own codes: no admin code on a REST endpoint, in the types and the served document", async () => {
    type RestClient = Effect.Effect.Success<ReturnType<typeof client>>
    type MediaUploadCodes = CodeOf<Effect.Effect.Error<ReturnType<RestClient["media"]["upload"]>>>
    type AdminGetCodes = CodeOf<Effect.Effect.Error<ReturnType<AdminClient["projects"]["get"]>>>
    // The REST API's 404 on an upload names tickets, and the project a Herald-Project header names
    // (the operator's); the admin API's names what is missing.
    expectTypeOf<Extract<MediaUploadCodes, NotFound["code"]>>().toEqualTypeOf<NotFound["code"]>()
    expectTypeOf<Extract<MediaUploadCodes, "project_not_found">>().toEqualTypeOf<"project_not_found">()
    expectTypeOf<Extract<MediaUploadCodes, Exclude<AdminNotFound["code"], "project_not_found"> | AdminUnauthorized["code"]>>().toEqualTypeOf<never>()
    expectTypeOf<Extract<AdminGetCodes, "project_not_found">>().toEqualTypeOf<"project_not_found">()
    expectTypeOf<Extract<AdminGetCodes, AdminUnauthorized["code"]>>().toEqualTypeOf<AdminUnauthorized["code"]>()
    expectTypeOf<Extract<AdminGetCodes, Unauthorized["code"] | NotFound["code"]>>().toEqualTypeOf<never>()

    const document = await (await server.call("/api/v1/openapi.json")).json() as {
      components: { schemas: Record<string, { properties?: { code?: { enum?: Array<string> } } }> }
    }
    const codes = Object.values(document.components.schemas).flatMap((schema) => schema.properties?.code?.enum ?? [])
    const adminCodes: ReadonlyArray<string> = [
      "missing_admin_token",
      "invalid_admin_token",
      "project_not_found",
      "api_key_not_found",
      "account_not_found",
      "webhook_endpoint_not_found",
      "webhook_send_not_found",
      "approval_channel_not_found",
      "webhook_send_not_given_up",
      "chat_url_refused",
      "email_not_configured",
      "webhook_url_refused",
      "route_not_supported"
    ] satisfies ReadonlyArray<AdminUnauthorized["code"] | AdminNotFound["code"] | AdminConflict["code"] | AdminRefused["code"]>
    expect(codes).toEqual(expect.arrayContaining(["post_not_found", "missing_api_key", "ticket_not_found"]))
    // project_not_found alone: the project a Herald-Project header names (the operator's, docs/api.md).
    expect(codes.filter((code) => adminCodes.includes(code))).toEqual(["project_not_found"])
    expect(document.components.schemas.Unauthorized!.properties!.code!.enum).toEqual(["missing_api_key", "invalid_api_key", "revoked_api_key"])
  })
})
