import { createHmac } from "node:crypto"
import { type ApprovalGrant, ApprovalLinks, ApprovalMessageId, isUuid, type Post, PostId, ProjectId } from "@herald/core"
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
  grant.message === undefined
    ? createHmac("sha256", Redacted.value(secret))
      .update(`herald-approval-v1\n${grant.projectId}\n${grant.postId}\n${grant.version}`)
      .digest()
    : createHmac("sha256", Redacted.value(secret))
      .update(`herald-approval-channel-v1\n${grant.projectId}\n${grant.postId}\n${grant.version}\n${grant.message}`)
      .digest()
      .subarray(0, channelMacBytes)

const uuidBytes = (uuid: string) => Buffer.from(uuid.replaceAll("-", ""), "hex")
const uuidOf = (bytes: Buffer) => {
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** 16 + 16 + 4 bytes of grant and 32 of MAC: 91 base64url characters, one path segment under the router's 100. */
const tokenBytes = 16 + 16 + 4 + 32

/**
 * A channel link's token: a tag byte, the grant, the message id, and the MAC cut to 128 bits (a
 * truncation HMAC allows) so it stays one segment under the router's 100: 69 bytes, 92 characters.
 */
const channelTag = 1
const channelMacBytes = 16
const channelTokenBytes = 1 + 16 + 16 + 4 + 16 + channelMacBytes

/**
 * base64url(project id, post id, version, HMAC-SHA256 over them). The MAC binds the link to one
 * post of one project at the version it had when the link was made, so it cannot be forged,
 * moved to another post, or used once the post changed (a decision bumps the version). A channel
 * link also binds the message it was sent in, so its decision names that channel and recipient.
 */
export const approvalToken = (secret: Redacted.Redacted<string>, grant: ApprovalGrant): string => {
  const version = Buffer.alloc(4)
  version.writeUInt32BE(grant.version)
  const fields = [uuidBytes(grant.projectId), uuidBytes(grant.postId), version]
  return (grant.message === undefined
    ? Buffer.concat([...fields, mac(secret, grant)])
    : Buffer.concat([Buffer.of(channelTag), ...fields, uuidBytes(grant.message), mac(secret, grant)])).toString("base64url")
}

/** The grant a token carries, if its MAC is right (checked in constant time). */
export const readApprovalToken = (secret: Redacted.Redacted<string>, token: string): Option.Option<ApprovalGrant> => {
  if (!/^[A-Za-z0-9_-]{91,92}$/.test(token)) return Option.none()
  const bytes = Buffer.from(token, "base64url")
  const channel = bytes.length === channelTokenBytes && bytes[0] === channelTag
  if (bytes.length !== tokenBytes && !channel) return Option.none()
  const fields = channel ? bytes.subarray(1) : bytes
  const projectId = uuidOf(fields.subarray(0, 16))
  const postId = uuidOf(fields.subarray(16, 32))
  const message = channel ? uuidOf(fields.subarray(36, 52)) : undefined
  if (!isUuid(projectId) || !isUuid(postId) || (message !== undefined && !isUuid(message))) return Option.none()
  const grant: ApprovalGrant = {
    projectId: ProjectId.make(projectId),
    postId: PostId.make(postId),
    version: fields.readUInt32BE(32),
    ...(message === undefined ? {} : { message: ApprovalMessageId.make(message) })
  }
  return secretsEqual(fields.subarray(channel ? 52 : 36), mac(secret, grant)) ? Option.some(grant) : Option.none()
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
        ),
      channelUrlFor: (post, message) =>
        Effect.succeed(`${base}${approvalPath}/${
          approvalToken(config.approvalSecret, { projectId: post.projectId, postId: post.id, version: post.version, message })
        }`)
    })
  })
)
