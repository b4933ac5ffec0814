import {
  FetchHttpClient,
  type HttpApi,
  HttpApiClient,
  type HttpApiEndpoint,
  type HttpApiGroup,
  HttpClient,
  HttpClientError,
  HttpClientRequest
} from "@effect/platform"
import { issueViolations } from "@herald/core"
import { type Brand, Cause, type DateTime, Effect, Exit, ParseResult, type Types } from "effect"
import {
  HeraldError,
  type HeraldErrorOfCode,
  heraldErrorOf,
  HeraldUnreachable,
  InvalidRequest,
  UnexpectedReply
} from "./HeraldErrors.js"

/**
 * What an endpoint can fail with, as this SDK's errors: the class of each code its replies
 * declare, plus what any call can meet (a request the client cannot encode, a Herald unreachable
 * or answering what its description does not give, a Herald shutting down or failing).
 */
export type SdkErrorOf<E> =
  | (E extends { readonly code: infer Code } ? HeraldErrorOfCode<Code> : never)
  | HeraldErrorOfCode<"invalid_request" | "internal_error" | "shutting_down" | "herald_unreachable" | "unexpected_reply">

/**
 * A request's fields with their brands taken off: ids are plain strings to an SDK caller (their
 * format is still checked, client-side, before the request leaves: InvalidRequest names the field).
 */
export type Unbranded<T> = T extends Brand.Brand<any> ? (T extends string ? string : T extends number ? number : T) // eslint-disable-line @typescript-eslint/no-explicit-any
  : T extends FormData | Uint8Array | DateTime.DateTime ? T
  : T extends ReadonlyArray<infer Item> ? ReadonlyArray<Unbranded<Item>>
  : T extends object ? { readonly [Key in keyof T]: Unbranded<T[Key]> }
  : T

type EndpointRequest<Endpoint> = [Endpoint] extends [
  HttpApiEndpoint.HttpApiEndpoint<
    infer _Name,
    infer _Method,
    infer Path,
    infer UrlParams,
    infer Payload,
    infer Headers,
    infer _Success,
    infer _Error,
    infer _R,
    infer _RE
  >
] ? Unbranded<Types.Simplify<HttpApiEndpoint.HttpApiEndpoint.ClientRequest<Path, UrlParams, Payload, Headers, false>>>
  : never

/** One endpoint as an Effect: its reply, or the SDK error of one of its codes. */
export type EffectMethod<Endpoint, Error> = [Endpoint] extends [
  HttpApiEndpoint.HttpApiEndpoint<
    infer _Name,
    infer _Method,
    infer _Path,
    infer _UrlParams,
    infer _Payload,
    infer _Headers,
    infer Success,
    infer EndpointError,
    infer _R,
    infer _RE
  >
] ? (request: EndpointRequest<Endpoint>) => Effect.Effect<Success, SdkErrorOf<EndpointError | Error>>
  : never

type EffectGroup<Group, ApiError> = [Group] extends [HttpApiGroup.HttpApiGroup<infer _Name, infer Endpoints, infer GroupError, infer _R, infer _TopLevel>]
  ? { readonly [Endpoint in Endpoints as HttpApiEndpoint.HttpApiEndpoint.Name<Endpoint>]: EffectMethod<Endpoint, GroupError | ApiError> }
  : never

/** A Herald API (HeraldApi, HeraldAdminApi) as Effects: group, then endpoint, as HttpApiClient names them. */
export type EffectClient<Api> = Api extends HttpApi.HttpApi<infer _Id, infer Groups, infer ApiError, infer _R>
  ? { readonly [Group in Groups as HttpApiGroup.HttpApiGroup.Name<Group>]: EffectGroup<Group, ApiError> }
  : never

/** The same API as Promises, each rejecting with the SDK error of its code (`instanceof` works). */
export type PromiseClient<Api> = {
  readonly [Group in keyof EffectClient<Api>]: {
    readonly [Method in keyof EffectClient<Api>[Group]]: EffectClient<Api>[Group][Method] extends
      (request: infer Request) => Effect.Effect<infer Success, infer _E> ? (request: Request) => Promise<Success> : never
  }
}

/** How a client reaches Herald: its root URL (the API's own prefixes follow it), a fetch, and the bearer to send. */
export interface ClientTransport {
  readonly baseUrl: string
  readonly fetch: typeof globalThis.fetch
  readonly bearer?: string | undefined
  /** Further headers on every request (Herald-Project, for the operator). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** A reply body the client read as one of its declared error classes, or one it could not place, as the SDK's error. */
const sdkError = (failure: unknown): Effect.Effect<HeraldError> => {
  if (failure instanceof HeraldError) return Effect.succeed(failure)
  if (HttpClientError.isHttpClientError(failure)) {
    if (failure._tag === "RequestError") {
      return Effect.succeed(new HeraldUnreachable(`Herald could not be reached: ${failure.message}`, {}, { cause: failure }))
    }
    // A status the endpoint does not declare (404 not_found, 503 shutting_down): its body is still { error, code }.
    return failure.response.json.pipe(
      Effect.map((body) => heraldErrorOf(typeof body === "object" && body !== null ? body : {}, failure)),
      Effect.orElseSucceed(() => new UnexpectedReply(`Herald answered ${failure.response.status} with a body that is not JSON`, {}, { cause: failure }))
    )
  }
  if (ParseResult.isParseError(failure)) {
    // Only the request's encoding gets here (transformResponse turns a reply's into UnexpectedReply).
    return Effect.map(ParseResult.ArrayFormatter.formatError(failure), (issues) => {
      const violations = issueViolations(issues)
      return new InvalidRequest(violations.map((violation) => `${violation.field}: ${violation.message}`).join("; "), { violations })
    })
  }
  if (typeof failure === "object" && failure !== null && "code" in failure) return Effect.succeed(heraldErrorOf(failure, failure))
  return Effect.succeed(new UnexpectedReply(`Herald's client failed: ${String(failure)}`, {}, { cause: failure }))
}

/** A reply that does not match the endpoint's description is Herald's fault (or a version apart), not the request's. */
const repliesRead = (reply: Effect.Effect<unknown, unknown>) =>
  Effect.catchIf(reply, ParseResult.isParseError, (error) =>
    Effect.fail(new UnexpectedReply(`Herald's reply does not match its description: ${error.message}`, {}, { cause: error })))

type AnyMethod = (request: unknown) => Effect.Effect<unknown, unknown>

const mapMethods = <T>(client: object, f: (method: AnyMethod) => (request: unknown) => unknown): T =>
  Object.fromEntries(Object.entries(client).map(([group, methods]) => [
    group,
    Object.fromEntries(Object.entries(methods as Record<string, AnyMethod>).map(([name, method]) => [name, f(method)]))
  ])) as T

/** HttpApiClient of `api` over the transport, its failures the SDK's errors. */
export const effectClient = <Api extends HttpApi.HttpApi.Any>(api: Api, transport: ClientTransport): EffectClient<Api> => {
  const { bearer, headers } = transport
  const client = HttpApiClient.make(api as unknown as HttpApi.HttpApi<string, HttpApiGroup.HttpApiGroup.Any, never, never>, {
    baseUrl: transport.baseUrl,
    transformClient: bearer === undefined && headers === undefined ? undefined : HttpClient.mapRequest((request) => {
      const signed = bearer === undefined ? request : HttpClientRequest.bearerToken(request, bearer)
      return headers === undefined ? signed : HttpClientRequest.setHeaders(signed, headers)
    }),
    transformResponse: repliesRead
  }).pipe(
    Effect.provide(FetchHttpClient.layer),
    Effect.provideService(FetchHttpClient.Fetch, transport.fetch),
    Effect.runSync
  )
  return mapMethods(client, (method) => (request) => Effect.catchAll(method(request), (failure) => Effect.flatMap(sdkError(failure), Effect.fail)))
}

/** The same client as Promises: each call rejects with its SDK error itself, not Effect's FiberFailure around it. */
export const promiseClient = <Api>(client: EffectClient<Api>): PromiseClient<Api> =>
  mapMethods(client, (method) => (request) =>
    Effect.runPromiseExit(method(request)).then(Exit.match({
      onSuccess: (value) => value,
      onFailure: (cause) => Promise.reject(Cause.squash(cause))
    })))
