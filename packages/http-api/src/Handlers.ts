import { HttpApiBuilder, type HttpServerRequest, OpenApi } from "@effect/platform"
import {
  AccountStore,
  ApprovalLinks,
  bestTimes,
  bestTimesRequestOf,
  BulkBody,
  bulkCreate,
  checkCaption,
  checkConnectionsNow,
  ConnectionCheckRuns,
  ConnectionChecks,
  ConnectionProbes,
  createdPostReply,
  CreatedPostReply,
  createPost,
  decidePost,
  deletePost,
  editPost,
  analyticsQueryOf,
  defaultInsightsDays,
  IdGenerator,
  listConnectionIssues,
  listSocialAccounts,
  insights,
  getPost,
  listPosts,
  MediaIngest,
  MediaLibrary,
  metricsHistoryOfPost,
  metricsOfPost,
  MetricsStore,
  parseBulkCsv,
  PinterestBoards,
  postingRulesFor,
  type PostRecord,
  postResults,
  postsToday,
  PostStore,
  type Principal,
  ProjectStore,
  projectPublishing,
  Publishers,
  PublishingPauses,
  readProject,
  requireScope,
  resolveAccountRefs,
  retryDelivery,
  statusMessage,
  takedownDelivery,
  Classifier,
  topPosts,
  topPostsRequestOf
} from "@herald/core"
import { DateTime, Effect, Either, Option, ParseResult, Schema, Stream } from "effect"
import {
  Authentication,
  defaultListLimit,
  HeraldApi,
  PostList,
  RequestBodyGuard,
  RequestUrlGuard
} from "./Api.js"
import { BadRequest, failWith, InvalidCsv, invalidRequest, malformedBody, ValidationFailedError } from "./HttpErrors.js"
import { refuseHeaderKey, withHeaderKey } from "./IdempotencyHeader.js"
import { refusingUnreadableNames } from "./MultipartFraming.js"
import { asCaller, CurrentPrincipal, groupContext, replyAsIs, replyKept } from "./RequestPath.js"

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

const csvRows = (text: string): Effect.Effect<ReadonlyArray<typeof BulkBody.Type["rows"][number]>, InvalidCsv | BadRequest> =>
  Either.match(parseBulkCsv(text), {
    onLeft: (invalid) =>
      Effect.fail(new InvalidCsv({ error: invalid.message, code: "invalid_csv", violations: invalid.violations })),
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

// ---------------------------------------------------------------------------------------------
// Groups
// ---------------------------------------------------------------------------------------------

export const PostsLive = HttpApiBuilder.group(HeraldApi, "posts", (handlers) =>
  handlers
    .handle("list", ({ urlParams }) =>
      asCaller((principal) => listPosts(principal, { statuses: urlParams.status ?? null, limit: urlParams.limit ?? defaultListLimit })).pipe(
        // Kept with its rows: listPosts hands out the same rows array while the list is unchanged,
        // and a query decoded before hands out the same statuses array.
        Effect.map((list) => replyKept(PostList, list, list.data, [list.filter.status, list.filter.limit]))
      ))
    .handle("get", ({ path }) => asCaller((principal) => getPost(principal, path.id)))
    .handle("create", ({ payload, request }) =>
      Effect.gen(function*() {
        const body = yield* withHeaderKey(request, payload)
        const reply = createdPostReply(yield* asCaller((principal) => createPost(principal, body)))
        // One reply schema for both statuses: matching the reply against the union of CreatedPost
        // and RepeatedPost to find its status code cost more than writing the post.
        return replyAsIs(CreatedPostReply, reply, reply.repeated ? 200 : 201)
      }))
    .handleRaw("bulk", ({ request }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        // Scope first: a key without posts:write learns nothing about its CSV.
        yield* requireScope(principal, "posts:write").pipe(Effect.catchAll(failWith))
        yield* refuseHeaderKey(request)
        const rows = yield* bulkRows(request)
        return yield* bulkCreate(principal, rows).pipe(Effect.catchAll(failWith))
      }))
    .handle("edit", ({ path, payload }) =>
      Effect.gen(function*() {
        const record = yield* asCaller((principal) => editPost(principal, path.id, payload))
        return {
          id: record.post.id,
          supersedes: path.id,
          status: record.post.status,
          message: statusMessage(record),
          ...(yield* approvalUrlOf(record))
        }
      }))
    .handle("remove", ({ path }) =>
      asCaller((principal) => deletePost(principal, path.id)))
    .handle("approve", ({ path, payload }) =>
      asCaller((principal) => decidePost(principal, path.id, payload)).pipe(
        Effect.map((record) => ({
          id: record.post.id,
          status: record.post.status,
          decision: payload.decision,
          reason: payload.reason ?? null
        }))
      ))
).pipe(groupContext(
  Authentication,
  RequestBodyGuard,
  RequestUrlGuard,
  ApprovalLinks,
  PostStore,
  ProjectStore,
  AccountStore,
  PinterestBoards,
  MediaLibrary,
  MediaIngest,
  IdGenerator,
  PublishingPauses,
  Classifier
))

export const DeliveriesLive = HttpApiBuilder.group(HeraldApi, "deliveries", (handlers) =>
  handlers
    .handle("results", ({ urlParams }) =>
      asCaller((principal) => postResults(principal, urlParams.post_id)))
    .handle("retry", ({ path }) =>
      asCaller((principal) => retryDelivery(principal, path.id)).pipe(
        Effect.map(({ delivery, record }) => ({
          id: delivery.id,
          status: delivery.status,
          post_id: record.post.id,
          post_status: record.post.status
        }))
      ))
    .handle("takedown", ({ path }) =>
      asCaller((principal) => takedownDelivery(principal, path.id)).pipe(
        Effect.map(({ delivery, record }) => ({
          id: delivery.id,
          status: delivery.status,
          post_id: record.post.id,
          post_status: record.post.status,
          taken_down_at: DateTime.formatIso(delivery.updatedAt)
        }))
      ))
).pipe(groupContext(Authentication, RequestUrlGuard, ApprovalLinks, PostStore, ProjectStore, AccountStore, Publishers))

const readProjectOf = (principal: Principal) => readProject(principal).pipe(Effect.catchAll(failWith))

/** The items of a comma-separated list, each with its place in the list as sent (empty items are skipped, not renumbered). */
const splitIds = (value: string) =>
  value.split(",").map((ref, index) => ({ ref: ref.trim(), index })).filter(({ ref }) => ref !== "")

export const AccountsLive = HttpApiBuilder.group(HeraldApi, "accounts", (handlers) =>
  handlers
    .handle("socialAccounts", () => asCaller(listSocialAccounts))
    .handle("postingRules", ({ urlParams }) =>
      Effect.gen(function*() {
        const [project, accounts] = yield* readProjectOf(yield* CurrentPrincipal)
        const refs = urlParams.account_ids === undefined ? [] : splitIds(urlParams.account_ids)
        const chosen = refs.length === 0 ? Either.right(accounts) : resolveAccountRefs(refs.map(({ ref }) => ref), accounts)
        if (Either.isLeft(chosen)) {
          const violations = chosen.left.map((failure) => ({
            field: `account_ids[${refs[failure.index]!.index}]`,
            account: failure.ref,
            message: failure.message
          }))
          return yield* Effect.fail(
            new ValidationFailedError({ error: violations.map((v) => v.message).join("; "), code: "validation_failed", violations })
          )
        }
        const boards = yield* PinterestBoards
        return {
          data: yield* Effect.forEach(chosen.right, (account) =>
            Effect.map(
              account.platform === "pinterest" ? boards.get(account.id) : Effect.succeed(Option.none()),
              (known) => postingRulesFor(account, accounts, project.signature, known)
            ))
        }
      }))
    .handle("project", () =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const [project] = yield* readProjectOf(principal)
        return {
          id: project.id,
          name: project.name,
          timezone: project.timezone,
          approval: project.approval,
          signature: project.signature,
          guardrails: project.guardrails,
          posts_today: yield* postsToday(principal),
          publishing: yield* projectPublishing(project.id)
        }
      }))
    .handle("checkGuardrails", ({ payload }) =>
      asCaller((principal) => checkCaption(principal, payload.caption)))
    .handle("connectionIssues", () => Effect.map(asCaller(listConnectionIssues), (data) => ({ data })))
    .handle("checkConnections", () => asCaller(checkConnectionsNow))
).pipe(groupContext(
  Authentication,
  RequestBodyGuard,
  RequestUrlGuard,
  PostStore,
  ProjectStore,
  AccountStore,
  PinterestBoards,
  Classifier,
  ConnectionChecks,
  ConnectionCheckRuns,
  ConnectionProbes,
  IdGenerator,
  PublishingPauses
))

export const AnalyticsLive = HttpApiBuilder.group(HeraldApi, "analytics", (handlers) =>
  handlers
    .handle("metrics", ({ urlParams }) =>
      CurrentPrincipal.pipe(Effect.flatMap((principal) => metricsOfPost(principal, urlParams.post_id)), Effect.catchAll(failWith)))
    .handle("metricsHistory", ({ urlParams }) =>
      CurrentPrincipal.pipe(Effect.flatMap((principal) => metricsHistoryOfPost(principal, urlParams.post_id)), Effect.catchAll(failWith)))
    .handle("insights", ({ urlParams }) =>
      CurrentPrincipal.pipe(
        Effect.flatMap((principal) => insights(principal, analyticsQueryOf(urlParams, defaultInsightsDays))),
        Effect.catchAll(failWith)
      ))
    .handle("topPosts", ({ urlParams }) =>
      CurrentPrincipal.pipe(
        Effect.flatMap((principal) =>
          topPosts(principal, topPostsRequestOf(urlParams))
        ),
        Effect.catchAll(failWith)
      ))
    .handle("bestTimes", ({ urlParams }) =>
      CurrentPrincipal.pipe(
        Effect.flatMap((principal) => bestTimes(principal, bestTimesRequestOf(urlParams))),
        Effect.catchAll(failWith)
      ))
).pipe(groupContext(Authentication, RequestUrlGuard, PostStore, MetricsStore, AccountStore))

export const SpecLive = HttpApiBuilder.group(
  HeraldApi,
  "spec",
  (handlers) => handlers.handle("openapi", () => Effect.sync(() => ({ ...OpenApi.fromApi(HeraldApi) })))
).pipe(groupContext(RequestUrlGuard))
