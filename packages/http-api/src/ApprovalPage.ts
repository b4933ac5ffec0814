import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse, UrlParams } from "@effect/platform"
import {
  AccountStore,
  ApprovalChannels,
  checkStoredText,
  DecisionBody,
  decidePostByLink,
  type Media,
  MediaLibrary,
  MediaStorage,
  platformRegistry,
  type Post,
  PostStore,
  printedText,
  ProjectStore,
  type SocialAccount
} from "@herald/core"
import { Effect, Either, Option, Schema } from "effect"
import { approvalPath, HttpApiConfig, readApprovalToken } from "./ApprovalLinks.js"
import { errorResponse, PayloadTooLarge } from "./HttpErrors.js"
import { readText } from "./RequestBody.js"

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[char]!)

const page = (title: string, body: string, status = 200) =>
  HttpServerResponse.text(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
      `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>` +
      `body{font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#222}` +
      `.card{border:1px solid #ddd;border-radius:12px;margin:1rem 0;overflow:hidden}` +
      `.card header{color:#fff;padding:.5rem .75rem;font-weight:600}.card .handle{opacity:.85;font-weight:400}` +
      `.card p{white-space:pre-wrap;padding:0 .75rem}.media{display:flex;gap:.5rem;padding:0 .75rem .75rem}` +
      `.media span{background:#eee;border-radius:6px;padding:1.5rem .75rem;font-size:.85rem}` +
      `.outcome{padding:.75rem;border-radius:8px;background:#f4f4f4}textarea{width:100%}button{margin:.5rem .5rem 0 0;padding:.5rem 1rem}` +
      `</style></head><body>${body}</body></html>`,
    { status, contentType: "text/html; charset=utf-8", headers: { "cache-control": "no-store", "x-frame-options": "DENY" } }
  )

/** A page with one sentence (the approval page and the OAuth callback answer with these). */
export const message = (title: string, text: string, status: number) =>
  page(title, `<h1>${escapeHtml(title)}</h1><p class="outcome">${escapeHtml(text)}</p>`, status)

const invalidLink = message("Link not valid", "This approval link is not valid. Ask for a new one.", 404)

/** One card per target: the post as that platform would print it (caption with signature, media placeholders). */
const card = (post: Post, account: SocialAccount, targets: ReadonlyArray<SocialAccount>, media: ReadonlyArray<Media>) => {
  const { look } = platformRegistry[account.platform]
  const text = printedText(
    { caption: post.caption, signature: post.signature, accounts: targets, media, platformConfigurations: post.platformConfigurations },
    account
  )
  const shown = post.mediaIds.flatMap((id) => media.filter((item) => item.id === id))
  return `<section class="card"><header style="background:${look.color}">${escapeHtml(look.name)} ` +
    `<span class="handle">@${escapeHtml(account.username)}</span></header>` +
    `<p>${text === null ? "<em>(no caption is printed here)</em>" : escapeHtml(text)}</p>` +
    (shown.length === 0
      ? ""
      : `<div class="media">${shown.map((item, index) => `<span>${escapeHtml(item.kind)} ${index + 1}</span>`).join("")}</div>`) +
    `</section>`
}

const outcomeOf = (post: Post): string =>
  post.supersededBy !== null
    ? "This post was edited; the edit replaced it and needs its own approval link."
    : post.decision !== null
    ? `This post was ${post.decision.outcome}${post.decision.reason === null ? "" : `: ${post.decision.reason}`}. It can no longer be decided here.`
    : post.status === "pending_approval"
    ? "This link was made for an earlier version of the post; open the newest approval link."
    : `This post is ${post.status.replace("_", " ")}; there is nothing to decide.`

const renderPost = (token: string, post: Post, decidable: boolean, notice: string | null) =>
  Effect.gen(function*() {
    const all = yield* AccountStore.pipe(Effect.flatMap((store) => store.list(post.projectId)))
    const targets = post.accountIds.flatMap((id) => all.filter((account) => account.id === id))
    const media = yield* MediaLibrary.pipe(Effect.flatMap((library) => library.getMany(post.projectId, post.mediaIds)))
    const project = yield* ProjectStore.pipe(Effect.flatMap((store) => store.get(post.projectId)))
    const name = Option.match(project, { onNone: () => "Herald", onSome: (p) => p.name })
    const action = `${approvalPath}/${encodeURIComponent(token)}`
    const form = decidable
      ? `<form method="post" action="${escapeHtml(action)}"><label>Reason (optional, sent with a rejection)<br>` +
        `<textarea name="reason" maxlength="2000" rows="3"></textarea></label><br>` +
        `<button name="decision" value="approve">Approve</button><button name="decision" value="reject">Reject</button></form>`
      : `<p class="outcome">${escapeHtml(notice ?? outcomeOf(post))}</p>`
    return `<h1>${escapeHtml(name)}: approve this post?</h1>` +
      (decidable && notice !== null ? `<p class="outcome">${escapeHtml(notice)}</p>` : "") +
      targets.map((account) => card(post, account, targets, media)).join("") + form
  })

/** The post a valid token names, and whether the token can still decide it. */
const lookup = (token: string) =>
  Effect.gen(function*() {
    const { approvalSecret } = yield* HttpApiConfig
    const grant = readApprovalToken(approvalSecret, token)
    if (Option.isNone(grant)) return Option.none()
    const found = yield* PostStore.pipe(Effect.flatMap((store) => store.find(grant.value.projectId, grant.value.postId)))
    return Option.map(found, ({ post }) => ({
      grant: grant.value,
      post,
      decidable: post.status === "pending_approval" && post.supersededBy === null && post.version === grant.value.version
    }))
  })

const gone = message("Post not found", "This post no longer exists.", 404)

const tokenParam = HttpRouter.schemaPathParams(Schema.Struct({ token: Schema.String }))

const show = Effect.gen(function*() {
  const { token } = yield* tokenParam
  const found = yield* lookup(token)
  if (Option.isNone(found)) return invalidLink
  if (found.value.grant.version > found.value.post.version) return invalidLink
  return page("Approve post", yield* renderPost(token, found.value.post, found.value.decidable, null))
})

/**
 * The post's first image, for the approval channels' messages (a chat service fetches it by URL).
 * Any valid link of the post shows it, decided or not: it is what the link's holder was sent.
 */
const picture = Effect.gen(function*() {
  const { token } = yield* tokenParam
  const found = yield* lookup(token)
  if (Option.isNone(found)) return invalidLink
  const { post } = found.value
  const media = yield* MediaLibrary.pipe(Effect.flatMap((library) => library.getMany(post.projectId, post.mediaIds)))
  const image = post.mediaIds.flatMap((id) => media.filter((item) => item.id === id && item.kind === "image"))[0]
  const bytes = image === undefined
    ? Option.none()
    : yield* MediaStorage.pipe(Effect.flatMap((storage) => storage.read(image.storageKey)))
  return image === undefined || Option.isNone(bytes)
    ? message("No picture", "This post has no picture.", 404)
    : HttpServerResponse.uint8Array(bytes.value, {
      contentType: image.mime,
      headers: { "cache-control": "private, max-age=3600", "x-content-type-options": "nosniff" }
    })
})

/** The form has a decision and a reason of at most 2000 characters: 16 KiB leaves room for any encoding of them. */
const formLimit = 16 * 1024

const FormBody = Schema.Struct({ decision: Schema.String, reason: Schema.optional(Schema.String) })

const decide = Effect.gen(function*() {
  const { token } = yield* tokenParam
  const found = yield* lookup(token)
  if (Option.isNone(found)) return invalidLink
  const { grant, post } = found.value
  if (!found.value.decidable) {
    return page("Already decided", yield* renderPost(token, post, false, null), 409)
  }
  const text = yield* Effect.either(readText(yield* HttpServerRequest.HttpServerRequest, formLimit))
  if (Either.isLeft(text) && text.left instanceof PayloadTooLarge) return errorResponse(text.left)
  const form = Option.flatMap(
    Either.getRight(text),
    (fields) => Schema.decodeUnknownOption(FormBody)(UrlParams.toRecord(UrlParams.fromInput(new URLSearchParams(fields))))
  )
  const check = Option.map(form, (fields) => checkStoredText(fields))
  const refused = Option.isSome(check) && check.value._tag === "Checked" ? check.value.violations[0] : undefined
  if (refused !== undefined) return message("Not decided", `The ${refused.field} ${refused.message}; remove it and try again.`, 400)
  const body = Option.flatMap(form, (fields) =>
    Schema.decodeUnknownOption(DecisionBody)({
      decision: fields.decision,
      ...(fields.reason === undefined || fields.reason.trim() === "" ? {} : { reason: fields.reason.trim() })
    }))
  if (Option.isNone(body)) return message("Not decided", "Choose Approve or Reject (a reason is at most 2000 characters).", 400)
  // A channel link's decision names its channel and recipient, as the message recorded them.
  const channel = grant.message === undefined
    ? Option.none()
    : yield* ApprovalChannels.pipe(Effect.flatMap((channels) => channels.recipientOf(grant.projectId, grant.message!)))
  return yield* decidePostByLink(grant, body.value, Option.getOrNull(channel)).pipe(
    Effect.flatMap((record) =>
      Effect.map(renderPost(token, record.post, false, null), (html) => page("Decided", html))
    ),
    Effect.catchTags({
      PostNotFound: () => Effect.succeed(gone),
      PostSuperseded: () => Effect.succeed(message("Not decided", outcomeOf(post.with({ supersededBy: post.id })), 409)),
      StateConflict: (conflict) => Effect.succeed(message("Not decided", conflict.message, 409)),
      AgentCannotApprove: (refused) => Effect.succeed(message("Not decided", refused.message, 403)),
      NotEditable: (refused) => Effect.succeed(message("Not decided", refused.message, 409))
    })
  )
})

/**
 * GET /approve/{token}: the post as each target would render it, with Approve and Reject.
 * POST /approve/{token}: the buttons; the signed token is the person's credential.
 * GET /approve/{token}/picture: the post's first image, which channel messages show.
 */
type PageServices = Exclude<
  Effect.Effect.Context<typeof show> | Effect.Effect.Context<typeof decide> | Effect.Effect.Context<typeof picture>,
  HttpRouter.RouteContext | HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams
>

export const ApprovalPageLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<PageServices>()
    const serve = <E, R extends PageServices | HttpRouter.RouteContext | HttpServerRequest.HttpServerRequest>(
      handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      handler.pipe(
        Effect.catchAllCause((cause) =>
          Effect.logError("approval page failed", cause).pipe(
            Effect.as(message("Something went wrong", "Herald could not show this page; try again later.", 500))
          )
        ),
        Effect.provide(context)
      )
    yield* router.get(`${approvalPath}/:token`, serve(show))
    yield* router.get(`${approvalPath}/:token/picture`, serve(picture))
    yield* router.post(`${approvalPath}/:token`, serve(decide))
  })
)
