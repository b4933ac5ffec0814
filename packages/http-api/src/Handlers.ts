import { HttpApiBuilder, type HttpServerRequest, HttpServerResponse, OpenApi } from "@effect/platform"
import {
  AccountStore,
  ApprovalLinks,
  BulkBody,
  bulkCreate,
  checkCaption,
  checkConnectionsNow,
  ConnectionCheckRuns,
  ConnectionChecks,
  ConnectionProbes,
  createPost,
  decidePost,
  deletePost,
  editPost,
  IdGenerator,
  listConnectionIssues,
  listPosts,
  loadProject,
  MediaIngest,
  MediaLibrary,
  parseBulkCsv,
  postingRulesFor,
  type PostRecord,
  postResults,
  postsToday,
  PostStore,
  type Principal,
  ProjectStore,
  Publishers,
  requireScope,
  resolveAccountRefs,
  retryDelivery,
  statusMessage,
  takedownDelivery,
  toAccountView,
  ToneClassifier,
  TopicClassifier
} from "@herald/core"
import { DateTime, Effect, Either, ParseResult, Schema, Stream } from "effect"
import {
  Authentication,
  CreatedPost,
  CurrentPrincipal,
  defaultListLimit,
  HeraldApi,
  PostList,
  RepeatedPost,
  RequestBodyGuard,
  RequestUrlGuard
} from "./Api.js"
import { BadRequest, failWith, invalidRequest, malformedBody, ValidationFailedError } from "./HttpErrors.js"
import { refusingUnreadableNames } from "./MultipartFraming.js"
import { groupContext } from "./RequestContext.js"

/** The approval page of a held post; absent on every other status. */
const approvalUrlOf = (record: PostRecord) =>
  record.post.status === "pending_approval"
    ? ApprovalLinks.pipe(Effect.flatMap((links) => links.urlFor(record.post)), Effect.map((url) => ({ approval_url: url })))
    : Effect.succeed({})

// ---------------------------------------------------------------------------------------------
// Bulk bodies: JSON, raw CSV, or a CSV file in the multipart field "file"
// ---------------------------------------------------------------------------------------------

const decodeRows = (body: unknown) =>
  Schema.decodeUnknown(BulkBody)(body, { errors: "all", onExcessProperty: "error" }).pipe(
    Effect.map(({ rows }) => rows),
    Effect.catchTag("ParseError", (error) =>
      Effect.flatMap(ParseResult.ArrayFormatter.formatError(error), (issues) => Effect.fail(invalidRequest(issues))))
  )

const csvRows = (text: string) =>
  Either.match(parseBulkCsv(text), {
    onLeft: (invalid) =>
      Effect.fail(new BadRequest({ error: invalid.message, code: "invalid_csv", violations: invalid.violations })),
    onRight: (rows) => decodeRows({ rows })
  })

const multipartCsv = (request: HttpServerRequest.HttpServerRequest) =>
  request.multipartStream.pipe(
    Stream.filter((part) => part._tag === "File" && part.key === "file"),
    Stream.runHead,
    Effect.catchAll(() => Effect.fail(malformedBody("the multipart body could not be read"))),
    Effect.flatMap((part) =>
      part._tag === "Some" && part.value._tag === "File"
        ? Effect.catchAll(part.value.contentEffect, () => Effect.fail(malformedBody("the file field could not be read")))
        : Effect.fail(new BadRequest({ error: "the multipart body needs the CSV in a file field named file", code: "invalid_request" }))
    ),
    refusingUnreadableNames,
    Effect.flatMap((bytes) =>
      Effect.try({
        try: () => new TextDecoder("utf-8", { fatal: true }).decode(bytes),
        catch: () => malformedBody("the CSV file is not valid UTF-8")
      })
    ),
    Effect.flatMap(csvRows)
  )

/** The rows of a bulk request in whichever of its three forms it came (the body guard already checked type and size). */
const bulkRows = (request: HttpServerRequest.HttpServerRequest) => {
  const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
  return type === "text/csv"
    ? Effect.flatMap(Effect.orDie(request.text), csvRows)
    : type === "multipart/form-data"
    ? multipartCsv(request)
    : Effect.flatMap(Effect.orDie(request.json), decodeRows)
}

type ListFilter = typeof PostList.Type["filter"]

/**
 * The bytes of a list already sent: listPosts hands out the same rows array while the list is
 * unchanged, and the filter comes from the same query, so the whole body is kept with the rows.
 * The filter is compared by its parts, the statuses by identity (a query decoded before hands out
 * the same array): an equal array that is another object only costs a rebuild.
 */
const listBodies = new WeakMap<ReadonlyArray<unknown>, { readonly filter: ListFilter; readonly body: Uint8Array }>()
const listBody = (list: { readonly data: ReadonlyArray<unknown>; readonly filter: ListFilter }) => {
  const known = listBodies.get(list.data)
  if (known !== undefined && known.filter.status === list.filter.status && known.filter.limit === list.filter.limit) {
    return known.body
  }
  const body = Buffer.from(`{"data":${JSON.stringify(list.data)},"filter":${JSON.stringify(list.filter)}}`)
  listBodies.set(list.data, { filter: list.filter, body })
  return body
}

/**
 * A schema's values when they are already their own encoded (JSON) form, i.e. it has no
 * transformation; never otherwise, so a reply sent as is stops compiling if one is added.
 */
type AsIs<S extends Schema.Schema.Any> = [S["Type"]] extends [S["Encoded"]]
  ? [S["Encoded"]] extends [S["Type"]] ? S["Type"] : never
  : never

// ---------------------------------------------------------------------------------------------
// Groups
// ---------------------------------------------------------------------------------------------

export const PostsLive = HttpApiBuilder.group(HeraldApi, "posts", (handlers) =>
  handlers
    .handle("list", ({ urlParams }) =>
      CurrentPrincipal.pipe(
        Effect.flatMap((principal) => listPosts(principal, { statuses: urlParams.status ?? null, limit: urlParams.limit ?? defaultListLimit })),
        // Sent as is: encoding PostList is the identity (AsIs), and re-checking every row's ids and
        // literals, which the domain types already guarantee, showed in the request's CPU
        // (bench/README.md, HTTP: GET /posts sent as is).
        Effect.map((list: AsIs<typeof PostList>) => HttpServerResponse.uint8Array(listBody(list), { contentType: "application/json" })),
        Effect.catchAll(failWith)
      ))
    .handle("create", ({ payload }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const created = yield* createPost(principal, payload).pipe(Effect.catchAll(failWith))
        const reply = {
          id: created.record.post.id,
          status: created.record.post.status,
          message: created.message,
          ...(created.record.post.status === "pending_approval" && created.approvalUrl !== null
            ? { approval_url: created.approvalUrl }
            : {})
        }
        // Sent as is (both replies are their own JSON, AsIs): matching the reply against the union
        // of the two to find its status code cost more than writing the post.
        return created.repeated
          ? HttpServerResponse.unsafeJson({ ...reply, repeated: true } satisfies AsIs<typeof RepeatedPost>)
          : HttpServerResponse.unsafeJson({ ...reply, repeated: false } satisfies AsIs<typeof CreatedPost>, { status: 201 })
      }))
    .handleRaw("bulk", ({ request }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        // Scope first: a key without posts:write learns nothing about its CSV.
        yield* requireScope(principal, "posts:write").pipe(Effect.catchAll(failWith))
        const rows = yield* bulkRows(request)
        return yield* bulkCreate(principal, rows).pipe(Effect.catchAll(failWith))
      }))
    .handle("edit", ({ path, payload }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const record = yield* editPost(principal, path.id, payload).pipe(Effect.catchAll(failWith))
        return {
          id: record.post.id,
          supersedes: path.id,
          status: record.post.status,
          message: statusMessage(record),
          ...(yield* approvalUrlOf(record))
        }
      }))
    .handle("remove", ({ path }) =>
      CurrentPrincipal.pipe(Effect.flatMap((principal) => deletePost(principal, path.id)), Effect.catchAll(failWith)))
    .handle("approve", ({ path, payload }) =>
      CurrentPrincipal.pipe(
        Effect.flatMap((principal) => decidePost(principal, path.id, payload)),
        Effect.map((record) => ({
          id: record.post.id,
          status: record.post.status,
          decision: payload.decision,
          reason: payload.reason ?? null
        })),
        Effect.catchAll(failWith)
      ))
).pipe(groupContext(
  Authentication,
  RequestBodyGuard,
  RequestUrlGuard,
  ApprovalLinks,
  PostStore,
  ProjectStore,
  AccountStore,
  MediaLibrary,
  MediaIngest,
  IdGenerator,
  TopicClassifier,
  ToneClassifier
))

export const DeliveriesLive = HttpApiBuilder.group(HeraldApi, "deliveries", (handlers) =>
  handlers
    .handle("results", ({ urlParams }) =>
      CurrentPrincipal.pipe(Effect.flatMap((principal) => postResults(principal, urlParams.post_id)), Effect.catchAll(failWith)))
    .handle("retry", ({ path }) =>
      CurrentPrincipal.pipe(
        Effect.flatMap((principal) => retryDelivery(principal, path.id)),
        Effect.map(({ delivery, record }) => ({
          id: delivery.id,
          status: delivery.status,
          post_id: record.post.id,
          post_status: record.post.status
        })),
        Effect.catchAll(failWith)
      ))
    .handle("takedown", ({ path }) =>
      CurrentPrincipal.pipe(
        Effect.flatMap((principal) => takedownDelivery(principal, path.id)),
        Effect.map(({ delivery, record }) => ({
          id: delivery.id,
          status: delivery.status,
          post_id: record.post.id,
          post_status: record.post.status,
          taken_down_at: DateTime.formatIso(delivery.updatedAt)
        })),
        Effect.catchAll(failWith)
      ))
).pipe(groupContext(Authentication, RequestUrlGuard, ApprovalLinks, PostStore, ProjectStore, AccountStore, Publishers))

/** The caller's project and all its accounts, for the read endpoints that have no use case of their own. */
const readProject = (principal: Principal) =>
  requireScope(principal, "posts:read").pipe(
    Effect.zipRight(Effect.all([loadProject(principal), AccountStore.pipe(Effect.flatMap((store) => store.list(principal.projectId)))])),
    Effect.catchAll(failWith)
  )

const splitIds = (value: string) => value.split(",").map((ref) => ref.trim()).filter((ref) => ref !== "")

export const AccountsLive = HttpApiBuilder.group(HeraldApi, "accounts", (handlers) =>
  handlers
    .handle("socialAccounts", () =>
      Effect.gen(function*() {
        const [project, accounts] = yield* readProject(yield* CurrentPrincipal)
        return { data: accounts.map((account) => toAccountView(account, accounts, project.signature)) }
      }))
    .handle("postingRules", ({ urlParams }) =>
      Effect.gen(function*() {
        const [project, accounts] = yield* readProject(yield* CurrentPrincipal)
        const refs = urlParams.account_ids === undefined ? [] : splitIds(urlParams.account_ids)
        const chosen = refs.length === 0 ? Either.right(accounts) : resolveAccountRefs(refs, accounts)
        if (Either.isLeft(chosen)) {
          const violations = chosen.left.map((failure) => ({
            field: `account_ids[${failure.index}]`,
            account: failure.ref,
            message: failure.message
          }))
          return yield* Effect.fail(
            new ValidationFailedError({ error: violations.map((v) => v.message).join("; "), code: "validation_failed", violations })
          )
        }
        // No board lookup is configured yet, so pinterest accounts answer boards: null.
        return { data: chosen.right.map((account) => postingRulesFor(account, accounts, project.signature, null)) }
      }))
    .handle("project", () =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const [project] = yield* readProject(principal)
        return {
          id: project.id,
          name: project.name,
          timezone: project.timezone,
          approval: project.approval,
          signature: project.signature,
          guardrails: project.guardrails,
          posts_today: yield* postsToday(principal)
        }
      }))
    .handle("checkGuardrails", ({ payload }) =>
      CurrentPrincipal.pipe(Effect.flatMap((principal) => checkCaption(principal, payload.caption)), Effect.catchAll(failWith)))
    .handle("connectionIssues", () =>
      CurrentPrincipal.pipe(
        Effect.flatMap(listConnectionIssues),
        Effect.map((data) => ({ data })),
        Effect.catchAll(failWith)
      ))
    .handle("checkConnections", () =>
      CurrentPrincipal.pipe(Effect.flatMap(checkConnectionsNow), Effect.catchAll(failWith)))
).pipe(groupContext(
  Authentication,
  RequestBodyGuard,
  RequestUrlGuard,
  PostStore,
  ProjectStore,
  AccountStore,
  TopicClassifier,
  ToneClassifier,
  ConnectionChecks,
  ConnectionCheckRuns,
  ConnectionProbes,
  IdGenerator
))

export const SpecLive = HttpApiBuilder.group(
  HeraldApi,
  "spec",
  (handlers) => handlers.handle("openapi", () => Effect.sync(() => ({ ...OpenApi.fromApi(HeraldApi) })))
).pipe(groupContext(RequestUrlGuard))
