import { createHmac } from "node:crypto"
import { type ApprovalGrant, ApprovalLinks, isUuid, type Post, PostId, ProjectId } from "@herald/core"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { secretsEqual } from "./ApiKeys.js"

/** What the REST layer needs from the app's configuration. */
export class HttpApiConfig extends Context.Tag("@herald/http-api/HttpApiConfig")<HttpApiConfig, {
  /** Where this server is reached from outside, e.g. https://herald.example.com (approval links start with it). */
  readonly baseUrl: string
  /** Keys the HMAC of approval links; rotating it voids every link already sent. */
  readonly approvalSecret: Redacted.Redacted<string>
}>() {}

const mac = (secret: Redacted.Redacted<string>, grant: ApprovalGrant) =>
  createHmac("sha256", Redacted.value(secret))
    .update(`herald-approval-v1\n${grant.projectId}\n${grant.postId}\n${grant.version}`)
    .digest()

const uuidBytes = (uuid: string) => Buffer.from(uuid.replaceAll("-", ""), "hex")
const uuidOf = (bytes: Buffer) => {
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** 16 + 16 + 4 bytes of grant and 32 of MAC: 91 base64url characters, one path segment under the router's 100. */
const tokenBytes = 16 + 16 + 4 + 32

/**
 * base64url(project id, post id, version, HMAC-SHA256 over them). The MAC binds the link to one
 * post of one project at the version it had when the link was made, so it cannot be forged,
 * moved to another post, or used once the post changed (a decision bumps the version).
 */
export const approvalToken = (secret: Redacted.Redacted<string>, grant: ApprovalGrant): string => {
  const version = Buffer.alloc(4)
  version.writeUInt32BE(grant.version)
  return Buffer.concat([uuidBytes(grant.projectId), uuidBytes(grant.postId), version, mac(secret, grant)]).toString("base64url")
}

/** The grant a token carries, if its MAC is right (checked in constant time). */
export const readApprovalToken = (secret: Redacted.Redacted<string>, token: string): Option.Option<ApprovalGrant> => {
  if (!/^[A-Za-z0-9_-]{91}$/.test(token)) return Option.none()
  const bytes = Buffer.from(token, "base64url")
  if (bytes.length !== tokenBytes) return Option.none()
  const projectId = uuidOf(bytes.subarray(0, 16))
  const postId = uuidOf(bytes.subarray(16, 32))
  if (!isUuid(projectId) || !isUuid(postId)) return Option.none()
  const grant = { projectId: ProjectId.make(projectId), postId: PostId.make(postId), version: bytes.readUInt32BE(32) }
  return secretsEqual(bytes.subarray(36), mac(secret, grant)) ? Option.some(grant) : Option.none()
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
