import { Context, DateTime, Deferred, Duration, Effect, FiberId, Layer, Option } from "effect"
import { accountRef, SocialAccount } from "../Account.js"
import { requireScope } from "../Authorization.js"
import {
  type ConnectionFinding,
  type ConnectionIssue,
  type ConnectionIssueKind,
  deadLogin,
  expiringToken,
  missingPermissionsFinding,
  rateLimitedCheck,
  unavailableAccount,
  unreachablePlatform
} from "../ConnectionIssue.js"
import { deadLoginData, makeEvent } from "../EventData.js"
import type { ProjectId } from "../Ids.js"
import type { Principal } from "../Principal.js"
import { AccountStore } from "../ports/AccountStore.js"
import { type CheckOutcome, ConnectionChecks } from "../ports/ConnectionChecks.js"
import { type ConnectionProbe, ConnectionProbes, missingPermissions } from "../ports/ConnectionProbes.js"
import { IdGenerator } from "../ports/IdGenerator.js"

/** How often accounts are probed (docs/configuration.md, Connection health). */
export interface ConnectionCheckPolicy {
  /** Between two probes of a healthy account. */
  readonly every: Duration.Duration
  /** Between two probes once the token expires within `warningWindow`, or the platform could not be asked. */
  readonly expiringEvery: Duration.Duration
  /** A token expiring sooner than this opens a token_expiring warning. */
  readonly warningWindow: Duration.Duration
  /** A probe without an answer by then counts as the platform unreachable. */
  readonly probeTimeout: Duration.Duration
  /** How long a claimed account stays leased to its worker. */
  readonly leaseMillis: number
}

export const defaultConnectionCheckPolicy: ConnectionCheckPolicy = {
  every: Duration.hours(6),
  expiringEvery: Duration.hours(1),
  warningWindow: Duration.days(7),
  probeTimeout: Duration.seconds(30),
  leaseMillis: 120_000
}

const later = (now: DateTime.Utc, wait: Duration.Duration) => DateTime.addDuration(now, wait)

type Conclusion = Omit<CheckOutcome, "account" | "worker" | "at" | "findings" | "deadLogin"> & {
  readonly findings: ReadonlyArray<ConnectionFinding>
}

/** What one probe says about an account, and when to ask again. */
const probe = Effect.fnUntraced(function*(account: SocialAccount, prober: ConnectionProbe, policy: ConnectionCheckPolicy, now: DateTime.Utc) {
  const health = yield* prober.check(account).pipe(
    Effect.timeoutFail({ duration: policy.probeTimeout, onTimeout: () => "timeout" as const }),
    Effect.either
  )
  if (health._tag === "Left") {
    const failure = health.left
    if (failure === "timeout") {
      return {
        answered: false,
        findings: [unreachablePlatform(account, `no answer within ${Duration.format(policy.probeTimeout)}`)],
        nextCheckAt: later(now, policy.expiringEvery),
        notBefore: null
      } satisfies Conclusion
    }
    const { category, message } = failure.error
    if (category === "rate_limited") {
      const until = later(now, failure.retryAfterMs === null ? policy.expiringEvery : Duration.millis(failure.retryAfterMs))
      return { answered: false, findings: [rateLimitedCheck(account, message, until)], nextCheckAt: until, notBefore: until } satisfies Conclusion
    }
    if (category === "auth_expired") {
      return { answered: true, findings: [deadLogin(account, message)], nextCheckAt: later(now, policy.every), notBefore: null } satisfies Conclusion
    }
    const finding = category === "not_found" || category === "permission_missing"
      ? unavailableAccount(account, message)
      : unreachablePlatform(account, message)
    return { answered: false, findings: [finding], nextCheckAt: later(now, policy.expiringEvery), notBefore: null } satisfies Conclusion
  }
  const answer = health.right
  if (answer._tag === "Refused") {
    return { answered: true, findings: [deadLogin(account, answer.message)], nextCheckAt: later(now, policy.every), notBefore: null } satisfies Conclusion
  }
  const findings: Array<ConnectionFinding> = []
  const missing = missingPermissions(answer)
  if (missing.length > 0) findings.push(missingPermissionsFinding(account, missing))
  const expiring = answer.expiresAt !== null && DateTime.lessThanOrEqualTo(answer.expiresAt, later(now, policy.warningWindow))
  if (expiring) findings.push(expiringToken(account, answer.expiresAt!, now))
  return {
    answered: true,
    findings,
    nextCheckAt: later(now, expiring ? policy.expiringEvery : policy.every),
    notBefore: null,
    ...(answer.report === undefined ? {} : { report: answer.report })
  } satisfies Conclusion
})

/**
 * Probes one account the caller holds the lease of, and records what it found: healthy, with
 * issues, or unprobed (nothing in this build can ask its route).
 */
export const checkAccount = Effect.fnUntraced(function*(account: SocialAccount, policy: ConnectionCheckPolicy, worker: string) {
  const checks = yield* ConnectionChecks
  const ids = yield* IdGenerator
  const now = yield* DateTime.now
  const prober = (yield* ConnectionProbes).forAccount(account)
  if (Option.isNone(prober)) {
    // Nothing in this build can ask the account's route: the throttle still spaces the (empty) checks.
    const nextCheckAt = later(now, policy.every)
    yield* checks.record({ account, worker, at: now, answered: false, findings: [], deadLogin: null, nextCheckAt, notBefore: null })
    return "unprobed" as const
  }
  const conclusion = yield* probe(account, prober.value, policy, now)
  const findings = yield* Effect.forEach(conclusion.findings, (finding) => Effect.map(ids.uuid, (id) => ({ ...finding, id })))
  const dead = findings.find((finding) => finding.kind === "login_dead")
  const deadLogin = dead === undefined
    ? null
    : yield* makeEvent(
      account.projectId,
      "account.needs_reconnect",
      deadLoginData(new SocialAccount({ ...account, status: "needs_reconnect" }), dead, now)
    )
  yield* checks.record({ ...conclusion, account, worker, at: now, findings, deadLogin })
  return findings.length === 0 ? "healthy" as const : "issues" as const
})

/** The accounts due for a check, up to `limit`, each probed under its lease. How many were checked. */
export const checkDueAccounts = Effect.fnUntraced(function*(policy: ConnectionCheckPolicy, worker: string, limit: number, concurrency: number) {
  const checks = yield* ConnectionChecks
  const claimed = yield* checks.claimDue({ now: yield* DateTime.now, leaseMillis: policy.leaseMillis, worker, limit })
  yield* Effect.forEach(claimed, (account) =>
    checkAccount(account, policy, worker).pipe(
      // A defect keeps nothing half-written: the lease is given back and the account is due again.
      Effect.catchAllDefect((defect) =>
        Effect.zipRight(
          Effect.logError(`connection check of account ${account.id} stopped`, defect),
          checks.release(account.id, worker)
        )
      )
    ), { concurrency, discard: true })
  return claimed.length
})

/** A row of GET/POST /connection-issues (docs/connection-health.md). */
export const issueView = (issue: ConnectionIssue, accounts: ReadonlyArray<SocialAccount>) => {
  const account = accounts.find((candidate) => candidate.id === issue.accountId)
  return {
    id: issue.id,
    account: {
      id: issue.accountId,
      platform: account?.platform ?? null,
      username: account?.username ?? null,
      ref: account === undefined ? issue.accountId : accountRef(account, accounts)
    },
    kind: issue.kind,
    severity: issue.severity,
    detail: issue.detail,
    action: issue.action,
    opened_at: DateTime.formatIso(issue.openedAt),
    last_checked_at: DateTime.formatIso(issue.lastCheckedAt),
    resolved_at: issue.resolvedAt === null ? null : DateTime.formatIso(issue.resolvedAt)
  }
}
export type IssueView = ReturnType<typeof issueView>

const openIssues = (projectId: ProjectId) =>
  Effect.gen(function*() {
    const issues = yield* Effect.flatMap(ConnectionChecks, (checks) => checks.listOpen(projectId))
    const accounts = yield* Effect.flatMap(AccountStore, (store) => store.list(projectId))
    return issues.map((issue) => issueView(issue, accounts))
  })

/** GET /connection-issues: the project's open issues. */
export const listConnectionIssues = Effect.fnUntraced(function*(principal: Principal) {
  yield* requireScope(principal, "posts:read")
  return yield* openIssues(principal.projectId)
})

export interface CheckSummary {
  /** Accounts probed by this check (not those inside a platform's wait, nor those whose route has no probe in this build). */
  readonly checked: number
  /** Of those, the ones with nothing wrong. */
  readonly healthy: number
  /** The project's open issues after the check, counted by kind. */
  readonly issues: Partial<Record<ConnectionIssueKind, number>>
}

export interface CheckReport {
  readonly summary: CheckSummary
  readonly data: ReadonlyArray<IssueView>
}

/**
 * The immediate checks running in this process, one per project: a POST that arrives while its
 * project's check runs waits for that check's answer instead of starting another.
 */
export class ConnectionCheckRuns extends Context.Tag("@herald/core/ConnectionCheckRuns")<ConnectionCheckRuns, {
  readonly join: <E, R>(projectId: ProjectId, run: Effect.Effect<CheckReport, E, R>) => Effect.Effect<CheckReport, E, R>
  /** This process's name in the leases of immediate checks. */
  readonly worker: string
  readonly policy: ConnectionCheckPolicy
}>() {
  static readonly layer = (worker: string, policy: ConnectionCheckPolicy = defaultConnectionCheckPolicy) =>
    Layer.sync(ConnectionCheckRuns, () => {
      const running = new Map<ProjectId, Deferred.Deferred<CheckReport, unknown>>()
      return ConnectionCheckRuns.of({
        worker,
        policy,
        join: <E, R>(projectId: ProjectId, run: Effect.Effect<CheckReport, E, R>) =>
          Effect.suspend(() => {
            const known = running.get(projectId)
            if (known !== undefined) return Deferred.await(known as Deferred.Deferred<CheckReport, E>)
            const done = Deferred.unsafeMake<CheckReport, E>(FiberId.none)
            running.set(projectId, done as Deferred.Deferred<CheckReport, unknown>)
            // Uninterruptible: a caller that goes away does not abandon the others waiting on it.
            return Effect.uninterruptible(Effect.intoDeferred(run, done)).pipe(
              Effect.ensuring(Effect.sync(() => running.delete(projectId))),
              Effect.zipRight(Deferred.await(done))
            )
          })
      })
    })
}

/** POST /connection-issues: probes the project's accounts now (not those inside a platform's wait). */
export const checkConnectionsNow = Effect.fnUntraced(function*(principal: Principal) {
  yield* requireScope(principal, "posts:read")
  const runs = yield* ConnectionCheckRuns
  const { policy, worker } = runs
  const run = Effect.gen(function*() {
    const checks = yield* ConnectionChecks
    const started = yield* DateTime.now
    const seen: Array<SocialAccount["id"]> = []
    let probed = 0
    let healthy = 0
    // An account the checker worker is probing right now is probed again once it lets go, so the
    // answer covers every account; a worker that died holding one is waited for up to probeTimeout.
    for (;;) {
      const now = yield* DateTime.now
      const { busy, claimed } = yield* checks.claimProject(principal.projectId, { now, leaseMillis: policy.leaseMillis, worker }, seen)
      const results = yield* Effect.forEach(claimed, (account) => checkAccount(account, policy, worker), { concurrency: 8 })
      claimed.forEach((account, index) => {
        seen.push(account.id)
        if (results[index] !== "unprobed") probed++
      })
      healthy += results.filter((result) => result === "healthy").length
      if (busy === 0 || Duration.greaterThan(Duration.millis(DateTime.distance(started, now)), policy.probeTimeout)) break
      yield* Effect.sleep(Duration.millis(50))
    }
    const data = yield* openIssues(principal.projectId)
    const issues: Partial<Record<ConnectionIssueKind, number>> = {}
    for (const issue of data) issues[issue.kind] = (issues[issue.kind] ?? 0) + 1
    return { summary: { checked: probed, healthy, issues }, data } satisfies CheckReport
  })
  return yield* runs.join(principal.projectId, run)
})
