import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { HeraldApi, ValidationFailedError } from "@herald/http-api"
import { Effect } from "effect"

/**
 * A typed Effect client of a Herald running elsewhere, straight from its exported HttpApi: every
 * request, reply and error reply is typed; a post the rules refuse fails with the reply's class.
 */
export const announce = (baseUrl: string, apiKey: string, caption: string) =>
  Effect.gen(function*() {
    const herald = yield* HttpApiClient.make(HeraldApi, {
      baseUrl,
      transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(apiKey))
    })
    const project = yield* herald.accounts.project()
    const post = yield* herald.posts.create({ payload: { caption, social_accounts: ["x:herald_demo"] } })
    return { project: project.name, post: post.id, status: post.status }
  }).pipe(
    // Each error reply decodes into its own class (HttpErrors.ts), with a literal `code`.
    Effect.catchIf(
      (error): error is ValidationFailedError => error instanceof ValidationFailedError,
      (refused) => Effect.succeed({ refused: refused.code, violations: refused.violations })
    ),
    Effect.provide(FetchHttpClient.layer)
  )

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.HERALD_URL ?? "http://localhost:3000"
  console.log(await Effect.runPromise(announce(url, process.env.HERALD_KEY ?? "", process.argv[2] ?? "Hello from Effect")))
}
