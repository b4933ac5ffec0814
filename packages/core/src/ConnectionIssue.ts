import { DateTime, Schema } from "effect"
import { SocialAccount } from "./Account.js"
import { AccountId, ProjectId } from "./Ids.js"
import { foreignText } from "./StoredText.js"

/**
 * What the connection checker can find wrong with an account (docs/connection-health.md):
 * - `login_dead`: the platform refuses the token (revoked, or expired beyond refresh); the account
 *   is needs_reconnect until a person reconnects it.
 * - `token_expiring`: the token works but expires within the warning window.
 * - `permission_missing`: the token lacks a permission Herald's calls there need.
 * - `account_unavailable`: the platform answers that the account is gone, suspended or restricted.
 * - `unreachable`: the platform could not be asked (down, no answer).
 * - `rate_limited`: the platform asked Herald to slow down; the next check waits its Retry-After.
 */
export const ConnectionIssueKind = Schema.Literal(
  "login_dead",
  "token_expiring",
  "permission_missing",
  "account_unavailable",
  "unreachable",
  "rate_limited"
)
export type ConnectionIssueKind = typeof ConnectionIssueKind.Type

/** critical: posts to the account fail until someone acts; warning: they still go out for now. */
export const ConnectionIssueSeverity = Schema.Literal("critical", "warning")
export type ConnectionIssueSeverity = typeof ConnectionIssueSeverity.Type

/** What a person does about an issue; url is the reconnect link where the account's route has one. */
export const ConnectionIssueAction = Schema.Struct({
  type: Schema.Literal("reconnect", "grant_permissions", "check_account", "wait"),
  description: Schema.String,
  url: Schema.NullOr(Schema.String)
})
export type ConnectionIssueAction = typeof ConnectionIssueAction.Type

/** One finding of one check, before it is stored as (or merged into) an incident. */
export interface ConnectionFinding {
  readonly kind: ConnectionIssueKind
  readonly severity: ConnectionIssueSeverity
  readonly detail: string
  readonly action: ConnectionIssueAction
}

/** An incident: opened once, touched by every check that still finds it, resolved once healthy. */
export class ConnectionIssue extends Schema.Class<ConnectionIssue>("ConnectionIssue")({
  id: Schema.UUID,
  projectId: ProjectId,
  accountId: AccountId,
  kind: ConnectionIssueKind,
  severity: ConnectionIssueSeverity,
  detail: Schema.String,
  action: ConnectionIssueAction,
  openedAt: Schema.DateTimeUtcFromSelf,
  lastCheckedAt: Schema.DateTimeUtcFromSelf,
  resolvedAt: Schema.NullOr(Schema.DateTimeUtcFromSelf)
}) {}

/** The kinds a reconnect (new credentials, status back to active) answers. */
export const reconnectKinds: ReadonlyArray<ConnectionIssueKind> = ["login_dead", "token_expiring", "permission_missing"]

const reconnect = (account: SocialAccount, description: string): ConnectionIssueAction => ({
  type: "reconnect",
  description: `${description} (${account.platform}:${account.username})`,
  url: null
})

export const deadLogin = (account: SocialAccount, why: string): ConnectionFinding => ({
  kind: "login_dead",
  severity: "critical",
  detail: `${account.platform} refuses the login of ${account.platform}:${account.username}: ${foreignText(why)}. Nothing can be posted there until it is reconnected.`,
  action: reconnect(account, "reconnect the account, then retry its failed deliveries")
})

export const expiringToken = (account: SocialAccount, expiresAt: DateTime.Utc, now: DateTime.Utc): ConnectionFinding => {
  const hours = Math.max(0, Math.floor(DateTime.distance(now, expiresAt) / 3_600_000))
  return {
    kind: "token_expiring",
    severity: "warning",
    detail: `the login of ${account.platform}:${account.username} expires at ${DateTime.formatIso(expiresAt)} (in about ${hours} h); posts will fail after that.`,
    action: reconnect(account, "reconnect the account before the login expires")
  }
}

export const missingPermissionsFinding = (account: SocialAccount, missing: ReadonlyArray<string>): ConnectionFinding => ({
  kind: "permission_missing",
  severity: "critical",
  detail: `the login of ${account.platform}:${account.username} lacks the permission${missing.length === 1 ? "" : "s"} ${missing.join(", ")} that Herald needs there.`,
  action: {
    type: "grant_permissions",
    description: `reconnect ${account.platform}:${account.username} and grant ${missing.join(", ")}`,
    url: null
  }
})

export const unavailableAccount = (account: SocialAccount, why: string): ConnectionFinding => ({
  kind: "account_unavailable",
  severity: "critical",
  detail: `${account.platform} reports ${account.platform}:${account.username} unavailable: ${foreignText(why)}.`,
  action: { type: "check_account", description: `check ${account.platform}:${account.username} on ${account.platform} (suspended, restricted or deleted)`, url: null }
})

export const unreachablePlatform = (account: SocialAccount, why: string): ConnectionFinding => ({
  kind: "unreachable",
  severity: "warning",
  detail: `${account.platform} could not be asked about ${account.platform}:${account.username}: ${foreignText(why)}.`,
  action: { type: "wait", description: "nothing yet: Herald checks again within the hour", url: null }
})

export const rateLimitedCheck = (account: SocialAccount, why: string, until: DateTime.Utc): ConnectionFinding => ({
  kind: "rate_limited",
  severity: "warning",
  detail: `${account.platform} is rate-limiting ${account.platform}:${account.username}: ${foreignText(why)}. Herald checks again after ${DateTime.formatIso(until)}.`,
  action: { type: "wait", description: "nothing: posts are retried after the platform's wait", url: null }
})
