import { DateTime, Duration, Effect, Option, Random } from "effect"
import { retryDelay, type RetryPolicy } from "../Backoff.js"
import { platformRegistry } from "../platforms/Registry.js"
import { printedText } from "../PostValidation.js"
import { AccountStore } from "../ports/AccountStore.js"
import { ApprovalChannels, type ClaimedApprovalMessage, ApprovalMessageOutcome } from "../ports/ApprovalChannels.js"
import { ApprovalLinks } from "../ports/ApprovalLinks.js"
import { type ApprovalNotice, ApprovalMessengers } from "../ports/ApprovalMessengers.js"
import { MediaLibrary } from "../ports/MediaLibrary.js"
import { MediaStorage } from "../ports/MediaStorage.js"
import { PostStore } from "../ports/PostStore.js"
import { ProjectStore } from "../ports/ProjectStore.js"
import type { ClaimRequest } from "../ports/DeliveryQueue.js"

/** Five tries over about two hours: a reviewer told late is still told, one never reached is given up on. */
export const approvalMessageRetry: Pick<RetryPolicy, "maxAttempts" | "backoffBase" | "backoffCap"> = {
  maxAttempts: 5,
  backoffBase: Duration.minutes(1),
  backoffCap: Duration.hours(1)
}

/** A picture larger than this goes by its link only, not inside the mail. */
const inlinePictureBytes = 5 * 1024 * 1024

/**
 * What the message about a post says; none when the post is no longer in the hold the message was
 * queued for (decided, edited, deleted, or released and held again: the new hold has its own message).
 */
const noticeFor = (claimed: ClaimedApprovalMessage) =>
  Effect.gen(function*() {
    const found = yield* Effect.flatMap(PostStore, (store) => store.find(claimed.projectId, claimed.postId))
    if (Option.isNone(found)) return Option.none<ApprovalNotice>()
    const { post } = found.value
    if (post.status !== "pending_approval" || post.supersededBy !== null || post.version !== claimed.postVersion) {
      return Option.none<ApprovalNotice>()
    }
    const all = yield* Effect.flatMap(AccountStore, (store) => store.list(post.projectId))
    const targets = post.accountIds.flatMap((id) => all.filter((account) => account.id === id))
    const media = yield* Effect.flatMap(MediaLibrary, (library) => library.getMany(post.projectId, post.mediaIds))
    const project = yield* Effect.flatMap(ProjectStore, (store) => store.get(post.projectId))
    const link = yield* Effect.flatMap(ApprovalLinks, (links) => links.channelUrlFor(post, claimed.id))
    const image = post.mediaIds.flatMap((id) => media.filter((item) => item.id === id && item.kind === "image"))[0]
    const bytes = image === undefined || image.bytes > inlinePictureBytes
      ? Option.none()
      : yield* Effect.flatMap(MediaStorage, (storage) => storage.read(image.storageKey))
    const draft = { caption: post.caption, signature: post.signature, accounts: targets, media, platformConfigurations: post.platformConfigurations }
    return Option.some<ApprovalNotice>({
      projectName: Option.match(project, { onNone: () => "Herald", onSome: (p) => p.name }),
      postId: post.id,
      targets: targets.map((account) => ({
        network: platformRegistry[account.platform].look.name,
        username: account.username,
        text: printedText(draft, account)
      })),
      scheduledAt: post.scheduledAt === null ? null : DateTime.formatIso(post.scheduledAt),
      link,
      picture: image === undefined
        ? Option.none()
        : Option.some({ url: `${link}/picture`, mime: image.mime, bytes: Option.getOrElse(bytes, () => new Uint8Array()) })
    })
  })

/**
 * Sends one claimed message and says how it ended: Skipped when the post is no longer held, Retry
 * on a failure with tries left, GaveUp after the last. Never fails.
 */
export const sendApprovalMessage = (claimed: ClaimedApprovalMessage) =>
  Effect.gen(function*() {
    const notice = yield* noticeFor(claimed)
    if (Option.isNone(notice)) return ApprovalMessageOutcome.Skipped({ at: yield* DateTime.now })
    const sent = yield* Effect.either(
      Effect.flatMap(ApprovalMessengers, (messengers) => messengers.send(claimed.channel.kind, claimed.address, notice.value))
    )
    const at = yield* DateTime.now
    if (sent._tag === "Right") return ApprovalMessageOutcome.Sent({ at })
    const attempt = claimed.attempts + 1
    if (attempt >= approvalMessageRetry.maxAttempts) return ApprovalMessageOutcome.GaveUp({ at, error: sent.left.reason })
    const wait = retryDelay(approvalMessageRetry, attempt, null, yield* Random.next)
    return ApprovalMessageOutcome.Retry({ at, dueAt: DateTime.addDuration(at, wait), error: sent.left.reason })
  })

/** One pass of the approval notifier: queue the messages owed, then send what is due; how many were handled. */
export const notifyApprovers = (request: ClaimRequest, concurrency: number) =>
  Effect.gen(function*() {
    const channels = yield* ApprovalChannels
    yield* channels.fanOut(request.now)
    const due = yield* channels.claimDue(request)
    yield* Effect.forEach(
      due,
      (claimed) => Effect.flatMap(sendApprovalMessage(claimed), (outcome) => channels.complete(claimed.id, request.worker, outcome)),
      { concurrency, discard: true }
    )
    return due.length
  })
