import { createHmac } from "node:crypto"
import { ApprovalLinks, isUuid, type Post, PostId, ProjectId } from "@herald/core"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { secretsEqual } from "./ApiKeys.js"

/** What the REST layer needs from the app's configuration. */
export class HttpApiConfig extends Context.Tag("@herald/http-api/HttpApiConfig")<HttpApiConfig, {
  /** Where this server is reached from outside, e.g. https://herald.example.com (approval links start with it). */
  readonly baseUrl: string
  /** Keys the HMAC of approval links; rotating it voids every link already sent. */
  readonly approvalSecret: Redacted.Redacted<string>
}>() {}

/** Which post, in which project, at which version a link was minted for. */
export interface ApprovalGrant {
  readonly projectId: ProjectId
  readonly postId: PostId
  readonly version: number
}

const mac = (secret: Redacted.Redacted<string>, grant: ApprovalGrant) =>
  createHmac("sha256", Redacted.value(secret))
    .update(`herald-approval-v1\n${grant.projectId}\n${grant.postId}\n${grant.version}`)
    .digest("base64url")

/**
 * `<project id>.<post id>.<version>.<HMAC-SHA256>`: the MAC binds the link to one post of one
 * project at the version it had when the link was made, so it cannot be forged, moved to another
 * post, or used once the post changed (a decision bumps the version).
 */
export const approvalToken = (secret: Redacted.Redacted<string>, grant: ApprovalGrant): string =>
  `${grant.projectId}.${grant.postId}.${grant.version}.${mac(secret, grant)}`

/** The grant a token carries, if its MAC is right (checked in constant time). */
export const readApprovalToken = (secret: Redacted.Redacted<string>, token: string): Option.Option<ApprovalGrant> => {
  const [projectId, postId, version, signature, ...rest] = token.split(".")
  if (
    rest.length > 0 || projectId === undefined || postId === undefined || version === undefined ||
    signature === undefined || !isUuid(projectId) || !isUuid(postId) || !/^[1-9][0-9]{0,9}$/.test(version)
  ) {
    return Option.none()
  }
  const grant = { projectId: ProjectId.make(projectId), postId: PostId.make(postId), version: Number(version) }
  return secretsEqual(signature, mac(secret, grant)) ? Option.some(grant) : Option.none()
}

export const approvalPath = "/approve"

/** ApprovalLinks signed with the configured secret, pointing at this server's approval page. */
export const HmacApprovalLinks: Layer.Layer<ApprovalLinks, never, HttpApiConfig> = Layer.effect(
  ApprovalLinks,
  Effect.map(HttpApiConfig, (config) => {
    const base = config.baseUrl.replace(/\/+$/, "")
    return ApprovalLinks.of({
      urlFor: (post: Post) =>
        Effect.succeed(
          `${base}${approvalPath}/${approvalToken(config.approvalSecret, { projectId: post.projectId, postId: post.id, version: post.version })}`
        )
    })
  })
)
