import { HttpClientRequest } from "@effect/platform"
import {
  AccountTokens,
  AlreadyGone,
  type Credentials,
  type DeliveryNote,
  MediaStorage,
  OutcomeUnknown,
  type Published,
  type Publisher,
  type PublishFailed,
  type PublishRequest,
  type SocialAccount,
  splitMedia,
  type XConfiguration
} from "@herald/core"
import { Context, DateTime, Effect, Either, Option } from "effect"
import { asPublish, asRead, authorized, type PlatformClient } from "../kit/index.js"
import { exchange, withToken } from "./XCall.js"
import { uploadMedia } from "./XMedia.js"
import { CreatedPost, DeletedPost, type Post, Timeline, UsersMe } from "./XWire.js"

type Configuration = typeof XConfiguration.Type

/** A poll without a duration stays open a day, as X's own composer proposes. */
const defaultPollMinutes = 1440

/** How far back reconcile looks for the post an unanswered create may have made. */
const reconcileWindowHours = 24

/** X's `reply_settings` for Herald's value; "everyone" is X's default, sent as no field at all. */
const replySettings = (value: Configuration["reply_settings"]) =>
  value === undefined || value === "everyone" ? {} : { reply_settings: value === "mentioned_users" ? "mentionedUsers" : value }

/** The body of POST /2/tweets for the main post. */
export const mainPostBody = (text: string, mediaIds: ReadonlyArray<string>, configuration: Configuration) => ({
  text,
  ...(mediaIds.length === 0 ? {} : { media: { media_ids: mediaIds } }),
  ...(configuration.poll === undefined
    ? {}
    : { poll: { options: configuration.poll.options, duration_minutes: configuration.poll.duration_minutes ?? defaultPollMinutes } }),
  ...replySettings(configuration.reply_settings)
})

export const postUrl = (username: string, id: string) => `https://x.com/${encodeURIComponent(username)}/status/${id}`

/**
 * X hands a post's text back with its links shortened to t.co and &, < and > escaped: undone here
 * so that it compares with what Herald sent.
 */
const textAsSent = (post: Post): string => {
  let text = post.text
  for (const link of post.entities?.urls ?? []) {
    if (link.url && link.expanded_url) text = text.split(link.url).join(link.expanded_url)
  }
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&").normalize("NFC").trim()
}

/**
 * Publishing to X through its API v2 with the account owner's OAuth 2 token: media first (see
 * XMedia.ts), then POST /2/tweets; a thread's follow-ups and the first comment are replies created
 * after it (each to the post before it; the first comment under the main post).
 */
export const makeXPublisher = (client: PlatformClient) =>
  Effect.gen(function*() {
    const services = Context.pick(AccountTokens, MediaStorage)(yield* Effect.context<AccountTokens | MediaStorage>())

    const createPost = (account: SocialAccount, body: object) =>
      authorized(account, (credentials) =>
        exchange(client.publish, HttpClientRequest.post("/2/tweets").pipe(withToken(credentials), HttpClientRequest.bodyUnsafeJson(body)), CreatedPost))

    /**
     * Replies after the main post: the ids of those made, and a note when one failed (which stops
     * the chain).
     */
    const replies = (account: SocialAccount, mainId: string, configuration: Configuration) =>
      Effect.gen(function*() {
        const chain = [
          ...(configuration.thread ?? []).map((text, index) => ({ text, label: `follow-up tweet ${index + 1}`, under: "previous" as const })),
          ...(configuration.first_comment === undefined || configuration.first_comment.trim() === ""
            ? []
            : [{ text: configuration.first_comment, label: "first comment", under: "main" as const }])
        ]
        let previous = mainId
        const made: Array<string> = []
        for (const reply of chain) {
          const result = yield* Effect.either(asPublish(createPost(account, {
            text: reply.text,
            reply: { in_reply_to_tweet_id: reply.under === "main" ? mainId : previous }
          })))
          if (Either.isLeft(result)) {
            const why = result.left._tag === "OutcomeUnknown" ? `got no answer (${result.left.detail}); it may exist` : `was refused: ${result.left.error.message}`
            return { made, note: { text: `the ${reply.label} ${why}; nothing after it was sent`, kind: null } satisfies DeliveryNote }
          }
          made.push(result.right.data.id)
          if (reply.under === "previous") previous = result.right.data.id
        }
        return { made, note: null }
      })

    const publish = (request: PublishRequest): Effect.Effect<Published, PublishFailed | OutcomeUnknown> => {
      const configuration = (request.configuration ?? {}) as Configuration
      const media = splitMedia("x", request.media, "timeline").sent
      return Effect.gen(function*() {
        const mediaIds = yield* asPublish(asRead(authorized(
          request.account,
          (credentials) => Effect.forEach(media, (item) => uploadMedia(client, credentials, item))
        )))
        const created = yield* asPublish(createPost(request.account, mainPostBody(request.text ?? "", mediaIds, configuration)))
        const { made, note } = yield* replies(request.account, created.data.id, configuration)
        return { platformPostId: created.data.id, url: postUrl(request.account.username, created.data.id), note, followUpPostIds: made }
      }).pipe(Effect.provide(services))
    }

    /** The account's X user id: kept in its credentials by the connection, else asked of X. */
    const userId = (credentials: Credentials) =>
      typeof credentials.user_id === "string"
        ? Effect.succeed(credentials.user_id)
        : Effect.map(
          exchange(client.read, HttpClientRequest.get("/2/users/me").pipe(withToken(credentials), HttpClientRequest.acceptJson), UsersMe),
          ({ data }) => data.id
        )

    /**
     * X has no idempotency key and no field to carry Herald's marker, so the post an unanswered
     * create may have made is looked for by its text: the account's own posts of the last 24 hours
     * (replies and reposts excluded), the newest whose text, links expanded, is the text Herald
     * sent. X refuses a duplicate of a recent post, so two such posts cannot both be live. A post
     * without text cannot be told apart this way: that outcome stays unknown.
     */
    const reconcile = (request: PublishRequest): Effect.Effect<Option.Option<Published>, PublishFailed | OutcomeUnknown> => {
      const sent = (request.text ?? "").normalize("NFC").trim()
      if (sent === "") {
        return Effect.fail(new OutcomeUnknown({ detail: "X gives Herald no way to find a post without text; look at the account's profile" }))
      }
      return Effect.gen(function*() {
        const since = DateTime.subtract(yield* DateTime.now, { hours: reconcileWindowHours })
        const timeline = yield* asPublish(authorized(request.account, (credentials) =>
          Effect.flatMap(userId(credentials), (id) =>
            exchange(
              client.read,
              HttpClientRequest.get(`/2/users/${encodeURIComponent(id)}/tweets`).pipe(
                HttpClientRequest.setUrlParams({
                  max_results: "100",
                  start_time: DateTime.formatIso(since),
                  exclude: "replies,retweets",
                  "post.fields": "created_at,entities"
                }),
                withToken(credentials),
                HttpClientRequest.acceptJson
              ),
              Timeline
            ))))
        return Option.map(
          Option.fromNullable((timeline.data ?? []).find((post) => textAsSent(post) === sent)),
          (post): Published => ({ platformPostId: post.id, url: postUrl(request.account.username, post.id), note: null })
        )
      }).pipe(Effect.provide(services))
    }

    /** DELETE /2/tweets/{id}: `true` when X removed it, `false` when X held no such post. */
    const remove = (account: SocialAccount, id: string) =>
      asPublish(authorized(account, (credentials) =>
        exchange(
          client.publish,
          HttpClientRequest.del(`/2/tweets/${encodeURIComponent(id)}`).pipe(withToken(credentials), HttpClientRequest.acceptJson),
          DeletedPost
        ))).pipe(
          Effect.map(({ data }) => data.deleted),
          Effect.catchIf(
            (error): error is PublishFailed => error._tag === "PublishFailed" && error.error.category === "not_found",
            () => Effect.succeed(false)
          )
        )

    /**
     * The thread's follow-ups and the first comment first, newest first, then the main post: a
     * takedown that fails part-way leaves the main post (and the receipt) in place to be taken down
     * again, and a follow-up already gone is no failure.
     */
    const takedown = (
      account: SocialAccount,
      platformPostId: string,
      followUpPostIds: ReadonlyArray<string> = []
    ): Effect.Effect<void, PublishFailed | OutcomeUnknown | AlreadyGone> =>
      Effect.forEach([...followUpPostIds].reverse(), (id) => remove(account, id), { discard: true }).pipe(
        Effect.zipRight(remove(account, platformPostId)),
        Effect.flatMap((deleted) =>
          deleted ? Effect.void : Effect.fail(new AlreadyGone({ detail: `x holds no live post ${platformPostId}` }))
        ),
        Effect.provide(services)
      )

    return {
      publish,
      reconcile,
      takedown
    } satisfies Publisher
  })
