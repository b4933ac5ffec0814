import { DateTime, Effect, Layer } from "effect"
import { SocialAccount } from "../Account.js"
import { type ConnectionFinding, ConnectionIssue, reconnectKinds } from "../ConnectionIssue.js"
import type { OutboxEvent } from "../Event.js"
import type { AccountId } from "../Ids.js"
import { AccountConnections } from "../ports/AccountConnections.js"
import { ConnectionChecks } from "../ports/ConnectionChecks.js"
import type { InMemoryData } from "./InMemoryStores.js"

interface Schedule {
  nextCheckAt: DateTime.Utc
  notBefore: DateTime.Utc | null
  lease: { readonly worker: string; readonly until: DateTime.Utc } | null
}

/**
 * AccountConnections and ConnectionChecks over the in-memory data, with the Postgres adapters'
 * semantics: one open incident per (account, kind), the event only when an active account is marked.
 */
export const makeInMemoryConnections = (data: InMemoryData) => {
  const issues: Array<ConnectionIssue> = []
  const schedules = new Map<string, Schedule>()

  const markDead = (accountId: AccountId, event: OutboxEvent) => {
    const account = data.accounts.get(accountId)
    if (account === undefined || account.status !== "active") return false
    data.accounts.set(accountId, new SocialAccount({ ...account, status: "needs_reconnect" }))
    data.outbox.push(event)
    return true
  }
  const openIncident = (accountId: AccountId, finding: ConnectionFinding & { readonly id: string }, at: DateTime.Utc) => {
    const account = data.accounts.get(accountId)
    if (account === undefined || account.status === "disconnected") return
    const index = issues.findIndex((issue) => issue.accountId === accountId && issue.kind === finding.kind && issue.resolvedAt === null)
    if (index >= 0) {
      const open = issues[index]!
      issues[index] = new ConnectionIssue({ ...open, severity: finding.severity, detail: finding.detail, action: finding.action, lastCheckedAt: at })
      return
    }
    issues.push(new ConnectionIssue({
      id: finding.id,
      projectId: account.projectId,
      accountId,
      kind: finding.kind,
      severity: finding.severity,
      detail: finding.detail,
      action: finding.action,
      openedAt: at,
      lastCheckedAt: at,
      resolvedAt: null
    }))
  }
  const resolveWhere = (accountId: AccountId, at: DateTime.Utc, which: (issue: ConnectionIssue) => boolean) => {
    const resolved: Array<ConnectionIssue> = []
    issues.forEach((issue, index) => {
      if (issue.accountId === accountId && issue.resolvedAt === null && which(issue)) {
        resolved.push(issue)
        issues[index] = new ConnectionIssue({ ...issue, resolvedAt: at, lastCheckedAt: at })
      }
    })
    return resolved
  }
  const scheduleOf = (accountId: string, now: DateTime.Utc) => {
    const known = schedules.get(accountId)
    if (known !== undefined) return known
    const fresh: Schedule = { nextCheckAt: now, notBefore: null, lease: null }
    schedules.set(accountId, fresh)
    return fresh
  }
  const claim = (accounts: ReadonlyArray<SocialAccount>, now: DateTime.Utc, leaseMillis: number, worker: string, due: boolean, limit: number) =>
    accounts
      .filter((account) => account.status !== "disconnected")
      .map((account) => ({ account, schedule: scheduleOf(account.id, now) }))
      .filter(({ schedule }) =>
        (!due || DateTime.lessThanOrEqualTo(schedule.nextCheckAt, now)) &&
        (schedule.notBefore === null || DateTime.lessThanOrEqualTo(schedule.notBefore, now)) &&
        (schedule.lease === null || DateTime.lessThanOrEqualTo(schedule.lease.until, now))
      )
      .sort((a, b) => DateTime.toEpochMillis(a.schedule.nextCheckAt) - DateTime.toEpochMillis(b.schedule.nextCheckAt))
      .slice(0, limit)
      .map(({ account, schedule }) => {
        schedule.lease = { worker, until: DateTime.add(now, { millis: leaseMillis }) }
        return account
      })

  return Layer.mergeAll(
    Layer.succeed(AccountConnections, AccountConnections.of({
      markNeedsReconnect: (accountId, event, issue) =>
        Effect.sync(() => {
          const marked = markDead(accountId, event)
          openIncident(accountId, issue, event.createdAt)
          return marked
        })
    })),
    Layer.succeed(ConnectionChecks, ConnectionChecks.of({
      claimDue: ({ leaseMillis, limit, now, worker }) =>
        Effect.sync(() => claim([...data.accounts.values()], now, leaseMillis, worker, true, limit)),
      claimProject: (projectId, { leaseMillis, now, worker }, except) =>
        Effect.sync(() => {
          const candidates = [...data.accounts.values()].filter((account) => account.projectId === projectId && !except.includes(account.id))
          const claimed = claim(candidates, now, leaseMillis, worker, false, Infinity)
          const busy = candidates.filter((account) => {
            const schedule = schedules.get(account.id)
            return account.status !== "disconnected" && !claimed.includes(account) && schedule?.lease !== null &&
              schedule?.lease !== undefined && DateTime.greaterThan(schedule.lease.until, now) &&
              (schedule.notBefore === null || DateTime.lessThanOrEqualTo(schedule.notBefore, now))
          }).length
          return { claimed, busy }
        }),
      record: (outcome) =>
        Effect.sync(() => {
          const { account, at } = outcome
          const dead = outcome.deadLogin === null ? false : markDead(account.id, outcome.deadLogin)
          for (const finding of outcome.findings) openIncident(account.id, finding, at)
          if (outcome.answered) {
            const kinds = outcome.findings.map((finding) => finding.kind)
            const resolved = resolveWhere(account.id, at, (issue) => !kinds.includes(issue.kind))
            const now = data.accounts.get(account.id)
            if (resolved.some((issue) => issue.kind === "login_dead") && now?.status === "needs_reconnect") {
              data.accounts.set(account.id, new SocialAccount({ ...now, status: "active" }))
            }
          }
          const current = data.accounts.get(account.id)
          if (outcome.report !== undefined && current !== undefined) {
            data.accounts.set(account.id, new SocialAccount({ ...current, report: outcome.report }))
          }
          const schedule = scheduleOf(account.id, at)
          if (schedule.lease?.worker === outcome.worker) {
            schedule.nextCheckAt = outcome.nextCheckAt
            schedule.notBefore = outcome.notBefore
            schedule.lease = null
          }
          return dead
        }),
      release: (accountId, worker) =>
        Effect.sync(() => {
          const schedule = schedules.get(accountId)
          if (schedule?.lease?.worker === worker) schedule.lease = null
        }),
      listOpen: (projectId) =>
        Effect.sync(() =>
          issues
            .filter((issue) => issue.projectId === projectId && issue.resolvedAt === null)
            .sort((a, b) => DateTime.toEpochMillis(a.openedAt) - DateTime.toEpochMillis(b.openedAt) || (a.id < b.id ? -1 : 1))
        ),
      authFailures: (projectId, accountId) =>
        Effect.sync(() =>
          [...data.posts.values()]
            .filter((record) => record.post.projectId === projectId)
            .flatMap((record) => record.deliveries)
            .filter((delivery) => delivery.accountId === accountId && delivery.status === "failed" && delivery.error?.category === "auth_expired")
            .map((delivery) => delivery.id)
        ),
      reconnected: (accountId, at) =>
        Effect.sync(() => {
          resolveWhere(accountId, at, (issue) => reconnectKinds.includes(issue.kind))
          const schedule = scheduleOf(accountId, at)
          schedule.nextCheckAt = at
          schedule.notBefore = null
        })
    }))
  )
}
