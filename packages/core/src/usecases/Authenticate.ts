import { DateTime, Effect, Metric, Option, Schema } from "effect"
import { ApiKeyId, isUuid, ProjectId } from "../Ids.js"
import { Principal, Scope } from "../Principal.js"
import { AdminTokens } from "../ports/AdminTokens.js"
import { type ApiKeyHash, type ApiKeyMatch, ApiKeyStore } from "../ports/ApiKeyStore.js"
import { ProjectStore } from "../ports/ProjectStore.js"
import { RateLimitStore, RateLimitVerdict } from "../ports/RateLimitStore.js"
import { recordCaller } from "../RequestRecord.js"
import { rateLimitRefusals } from "../ServiceMetrics.js"

/** No key has this hash. */
export class ApiKeyUnknown extends Schema.TaggedError<ApiKeyUnknown>()("ApiKeyUnknown", {}) {
  override get message(): string {
    return "invalid API key"
  }
}

/** The key exists but was revoked: told apart from an unknown one so its holder knows why. */
export class ApiKeyRevoked extends Schema.TaggedError<ApiKeyRevoked>()("ApiKeyRevoked", {}) {
  override get message(): string {
    return "this API key was revoked"
  }
}

/** The key used up its current one-minute window; `retryAfterSeconds` (at least 1) until it resets. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  verdict: RateLimitVerdict,
  retryAfterSeconds: Schema.Int
}) {
  override get message(): string {
    return `rate limit of ${this.verdict.limit} requests a minute reached; retry in ${this.retryAfterSeconds} s`
  }
}

/** The header that names the project the admin token acts on (REST; docs/api.md, "The operator"). */
export const projectHeader = "Herald-Project"

/**
 * The Herald-Project header where it has no place or no meaning: sent with an API key (a key
 * already has its project) or not a project id. Answered 400 naming the header.
 */
export class ProjectHeaderInvalid extends Schema.TaggedError<ProjectHeaderInvalid>()("ProjectHeaderInvalid", {
  reason: Schema.Literal("with_api_key", "malformed")
}) {
  override get message(): string {
    return this.reason === "with_api_key"
      ? `the ${projectHeader} header goes with the admin token only: an API key acts on its own project`
      : `the ${projectHeader} header must be a project id (a UUID)`
  }
}

/** The admin token without the Herald-Project header: it names no project to act on. */
export class ProjectHeaderMissing extends Schema.TaggedError<ProjectHeaderMissing>()("ProjectHeaderMissing", {}) {
  override get message(): string {
    return `the admin token acts on the REST API only with a ${projectHeader} header naming the project`
  }
}

/** The Herald-Project header names no project of this instance. */
export class ProjectHeaderUnknown extends Schema.TaggedError<ProjectHeaderUnknown>()("ProjectHeaderUnknown", {
  projectId: Schema.String
}) {
  override get message(): string {
    return `no project ${this.projectId}: the ${projectHeader} header names none`
  }
}

/**
 * What a request presents beside its credential's hash: whether the credential is the admin token
 * (the caller tells, by its format) and the Herald-Project header as sent. Without it: an API key.
 */
export interface Presented {
  readonly adminToken: boolean
  readonly project: string | undefined
}

const anApiKey: Presented = { adminToken: false, project: undefined }

/**
 * The operator's requests on one project share one window per admin token: a person at the
 * dashboard (its queue polls every 5 s) or a script, well above a default key's 60 and low enough
 * that a leaked session cannot flood the instance.
 */
export const operatorRateLimitPerMinute = 600

/** The name the operator's actions carry in provenance (key_name). */
export const operatorName = "operator"

const allScopes = Scope.literals

/**
 * The admin token's identity in provenance: a UUID made of its hash (SHA-256 of a 256-bit random
 * token, which discloses nothing of the token), marked version 8 so that it never reads as an API
 * key's id (random, version 4). Stable for the token's life, so an operator's actions group by it.
 */
export const operatorKeyId = (hash: ApiKeyHash): ApiKeyId => {
  const variant = ((parseInt(hash[16]!, 16) & 0x3) | 0x8).toString(16)
  return ApiKeyId.make(`${hash.slice(0, 8)}-${hash.slice(8, 12)}-8${hash.slice(13, 16)}-${variant}${hash.slice(17, 20)}-${hash.slice(20, 32)}`)
}

/** A request admitted: who makes it, and the state of its key's window (for the caller's rate-limit headers). */
export interface Authenticated {
  readonly principal: Principal
  readonly verdict: RateLimitVerdict
}

/**
 * Key → principal. The caller hashes the presented key (SHA-256, ApiKeyHash) before it gets here:
 * the secret itself never enters the core, so no span, error or log written here can carry it,
 * and the core needs no crypto. Nothing secret is compared (the hash is the lookup), so there is
 * no timing oracle.
 *
 * Built once from the stores (a REST server builds it with its layer): each call is then a short
 * chain of steps, each synchronous inside, as it runs on every request and what it needs is in
 * memory nearly always (the key through the store's cache, the rate limit through this process's
 * share of the window).
 */
export const makeAuthenticator = Effect.map(Effect.all([
  ApiKeyStore,
  RateLimitStore,
  // Optional: a host without admin tokens (an SDK in process, a test) knows none, and its
  // Herald-Project requests are refused as unknown credentials.
  Effect.serviceOption(AdminTokens),
  Effect.serviceOption(ProjectStore)
]), ([keys, limits, admins, projects]) => {
  const known = (found: Option.Option<ApiKeyMatch>): Effect.Effect<ApiKeyMatch, ApiKeyUnknown | ApiKeyRevoked> =>
    Option.isNone(found)
      ? Effect.fail(new ApiKeyUnknown())
      : found.value.revoked
      ? Effect.fail(new ApiKeyRevoked())
      : Effect.succeed(found.value)

  // Best effort and cheap (PostgreSQL writes it at most once a minute per key): no fiber of its own.
  // The caller is recorded for the access log (RequestRecord) wherever a key is recognised.
  const touched = (match: ApiKeyMatch, now: DateTime.Utc) =>
    Effect.zipRight(recordCaller(match.principal.keyId), keys.touch(match.principal.keyId, now))

  /**
   * The admin token acting on the project its Herald-Project header names: a person of that
   * project (human, so nothing it writes is held for approval), with every scope and no daily cap,
   * named in provenance by operatorKeyId and operatorName. The admin token has no row of its own
   * to touch; the access log names it "admin", as on the admin API.
   */
  const operator = (hash: ApiKeyHash, project: string | undefined): Effect.Effect<ApiKeyMatch, ApiKeyUnknown | OperatorRefusal> => {
    if (project === undefined) return Effect.fail(new ProjectHeaderMissing())
    if (!isUuid(project)) return Effect.fail(new ProjectHeaderInvalid({ reason: "malformed" }))
    if (Option.isNone(admins) || Option.isNone(projects)) return Effect.fail(new ApiKeyUnknown())
    return admins.value.isKnown(hash).pipe(
      Effect.filterOrFail((known) => known, () => new ApiKeyUnknown()),
      Effect.zipRight(projects.value.get(ProjectId.make(project.toLowerCase()))),
      Effect.flatMap(Option.match({
        onNone: () => Effect.fail(new ProjectHeaderUnknown({ projectId: project })),
        onSome: (found) =>
          Effect.as(recordCaller("admin"), {
            principal: new Principal({
              projectId: found.id,
              keyId: operatorKeyId(hash),
              keyName: operatorName,
              kind: "human",
              scopes: allScopes,
              dailyPostCap: null,
              surface: "rest"
            }, true),
            rateLimitPerMinute: operatorRateLimitPerMinute,
            revoked: false,
            operator: true as const
          })
      }))
    )
  }

  /** The credential's match: the API key's, or the operator's on the named project. */
  const matchOf = (hash: ApiKeyHash, presented: Presented): Effect.Effect<ApiKeyMatch, ApiKeyUnknown | ApiKeyRevoked | OperatorRefusal> =>
    presented.adminToken
      ? operator(hash, presented.project)
      : presented.project !== undefined
      ? Effect.fail(new ProjectHeaderInvalid({ reason: "with_api_key" }))
      : Effect.flatMap(keys.findByHash(hash), known)

  const admit = (match: ApiKeyMatch) =>
    Effect.clockWith((clock) => {
      const now = DateTime.unsafeMake(clock.unsafeCurrentTimeMillis())
      return (isOperator(match) ? Effect.void : touched(match, now)).pipe(
        Effect.zipRight(limits.hit(match.principal.keyId, match.rateLimitPerMinute, now)),
        Effect.flatMap((verdict): Effect.Effect<Authenticated, RateLimited> =>
          verdict.allowed
            ? Effect.succeed({ principal: match.principal, verdict })
            : Effect.zipRight(
              Metric.increment(rateLimitRefusals),
              Effect.fail(
                new RateLimited({
                  verdict,
                  retryAfterSeconds: Math.max(Math.ceil(DateTime.distance(now, verdict.resetAt) / 1000), 1)
                })
              )
            )
        )
      )
    })

  return {
    /** The key's principal (its project, kind and scopes); unknown and revoked keys refused. Counts nothing. */
    identify: (hash: ApiKeyHash): Effect.Effect<Principal, ApiKeyUnknown | ApiKeyRevoked> =>
      Effect.map(Effect.flatMap(keys.findByHash(hash), known), (match) => match.principal),
    /**
     * identify (or the operator's principal, `presented`), then the key's last use recorded;
     * counts nothing against its limit (the SDK: the embedding service calls for itself, and a
     * rate limit there would only stall its own work).
     */
    recognize: (hash: ApiKeyHash, presented: Presented = anApiKey): Effect.Effect<Principal, ApiKeyUnknown | ApiKeyRevoked | OperatorRefusal> =>
      Effect.flatMap(matchOf(hash, presented), (match) =>
        isOperator(match)
          ? Effect.succeed(match.principal)
          : Effect.clockWith((clock) =>
            Effect.as(touched(match, DateTime.unsafeMake(clock.unsafeCurrentTimeMillis())), match.principal))),
    /**
     * identify, then the key's last use recorded and one request counted against its per-minute
     * limit. With `presented` saying the credential is the admin token: the operator of the
     * project its Herald-Project header names (`operator` above), counted against
     * operatorRateLimitPerMinute; the header with an API key is refused.
     */
    authenticate: (hash: ApiKeyHash, presented: Presented = anApiKey): Effect.Effect<Authenticated, ApiKeyUnknown | ApiKeyRevoked | RateLimited | OperatorRefusal> =>
      Effect.flatMap(matchOf(hash, presented), admit)
  }
})

/** Why the Herald-Project header (or its absence with the admin token) refuses a request. */
export type OperatorRefusal = ProjectHeaderInvalid | ProjectHeaderMissing | ProjectHeaderUnknown

type OperatorMatch = ApiKeyMatch & { readonly operator: true }
const isOperator = (match: ApiKeyMatch): match is OperatorMatch => "operator" in match

export type Authenticator = Effect.Effect.Success<typeof makeAuthenticator>
