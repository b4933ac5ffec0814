import { HeraldAdminApi, HeraldApi } from "@herald/http-api"
import { effectClient, type EffectClient, promiseClient, type PromiseClient } from "./TypedClient.js"

/** Where a Herald runs and what to present to it. */
export interface HeraldClientOptions {
  /** Herald's root URL (the one its /api/v1 and /admin/v1 hang from), e.g. https://herald.example.com or https://example.com/herald. */
  readonly url: string
  /** Sent as Bearer on the REST API (/api/v1); omitted, every call there fails with MissingApiKey. */
  readonly apiKey?: string
  /** Sent as Bearer on the admin API (/admin/v1); omitted, every call there fails with MissingAdminToken. */
  readonly adminToken?: string
  /**
   * A project id, with `adminToken` and without `apiKey`: the REST API (`api`) then acts on this
   * project as its operator, the admin token sent as Bearer with the Herald-Project header
   * (docs/api.md, "The operator").
   */
  readonly project?: string
  /** A fetch of your own (a proxy, a test double); the global one by default. */
  readonly fetch?: typeof globalThis.fetch
}

/** The REST and admin APIs of a Herald, typed from the HttpApi it serves, as Promises and as Effects. */
export interface HeraldClient {
  readonly api: PromiseClient<typeof HeraldApi>
  readonly admin: PromiseClient<typeof HeraldAdminApi>
  readonly effect: {
    readonly api: EffectClient<typeof HeraldApi>
    readonly admin: EffectClient<typeof HeraldAdminApi>
  }
}

/** The two APIs over one fetch, each with its own bearer; `project` the operator's Herald-Project on the REST API. */
export const heraldClientOver = (
  baseUrl: string,
  fetch: typeof globalThis.fetch,
  bearers: { readonly api?: string | undefined; readonly admin?: string | undefined; readonly project?: string | undefined }
): HeraldClient => {
  const api = effectClient(HeraldApi, {
    baseUrl,
    fetch,
    bearer: bearers.api,
    headers: bearers.project === undefined ? undefined : { "herald-project": bearers.project }
  })
  const admin = effectClient(HeraldAdminApi, { baseUrl, fetch, bearer: bearers.admin })
  return { api: promiseClient(api), admin: promiseClient(admin), effect: { api, admin } }
}

/**
 * A typed client of a Herald running elsewhere (HttpApiClient over the exported HttpApi): the same
 * methods, replies and error classes as createHerald's in-process client.
 *
 * ```ts
 * const herald = heraldClient({ url: "https://herald.example.com", apiKey: process.env.HERALD_KEY })
 * const post = await herald.api.posts.create({ payload: { caption: "Hi", social_accounts: ["x:acme"] } })
 * ```
 */
export const heraldClient = (options: HeraldClientOptions): HeraldClient => {
  if (options.project !== undefined && (options.apiKey !== undefined || options.adminToken === undefined)) {
    // The server would refuse every call (400: a key has its project); said here, at once.
    throw new TypeError("heraldClient: project goes with adminToken and without apiKey (the operator acts on that project)")
  }
  return heraldClientOver(options.url.replace(/\/+$/, ""), options.fetch ?? ((input, init) => globalThis.fetch(input, init)), {
    api: options.project === undefined ? options.apiKey : options.adminToken,
    admin: options.adminToken,
    project: options.project
  })
}
