import { Context, type DateTime, type Effect } from "effect"
import type { AccountReport, SocialAccount } from "../Account.js"
import type { ConnectionFinding, ConnectionIssue } from "../ConnectionIssue.js"
import type { OutboxEvent } from "../Event.js"
import type { AccountId, DeliveryId, ProjectId } from "../Ids.js"

export interface CheckLease {
  readonly now: DateTime.Utc
  readonly leaseMillis: number
  readonly worker: string
}

/**
 * What one probe of one account concluded, recorded in one transaction with the release of its lease.
 * - `answered`: the platform answered about the token (alive or refused), so an open issue not
 *   among `findings` is over; false (it could not be asked) leaves the other issues as they were.
 * - `findings`: each opens an incident, or touches the open one of its kind.
 * - `deadLogin`: the event to write when this check turns the account needs_reconnect (with a
 *   login_dead finding); null when the login works.
 * - `nextCheckAt`: when the throttle lets the account be probed again; `notBefore`: the platform's
 *   own wait (Retry-After), which no immediate check bypasses either.
 */
export interface CheckOutcome {
  readonly account: SocialAccount
  readonly worker: string
  readonly at: DateTime.Utc
  readonly answered: boolean
  readonly findings: ReadonlyArray<ConnectionFinding & { readonly id: string }>
  readonly deadLogin: OutboxEvent | null
  readonly nextCheckAt: DateTime.Utc
  readonly notBefore: DateTime.Utc | null
  /** What the platform reported of the account on this check, to keep with it (undefined: nothing new). */
  readonly report?: AccountReport
}

/**
 * The connection checker's schedule, leases and incidents. A lease keeps two workers (in any
 * process) from probing one account at once; incidents are unique per (account, kind) while open,
 * so a finding seen by many checks, or by a check and a failed delivery, is one incident.
 */
export class ConnectionChecks extends Context.Tag("@herald/core/ConnectionChecks")<ConnectionChecks, {
  /** Up to `limit` accounts (not disconnected) whose next check is due, under a lease for `worker`. */
  readonly claimDue: (lease: CheckLease & { readonly limit: number }) => Effect.Effect<ReadonlyArray<SocialAccount>>
  /**
   * Every account of the project (but those in `except`) that can be probed now, whatever the
   * throttle says, under a lease for `worker`. Those inside the platform's wait are left out;
   * those another worker is probing are left out too, and counted in `busy`.
   */
  readonly claimProject: (
    projectId: ProjectId,
    lease: CheckLease,
    except: ReadonlyArray<AccountId>
  ) => Effect.Effect<{ readonly claimed: ReadonlyArray<SocialAccount>; readonly busy: number }>
  /** Records a probe's outcome and releases its lease; true when it turned the account needs_reconnect. */
  readonly record: (outcome: CheckOutcome) => Effect.Effect<boolean>
  /** Gives back a lease without recording anything (the probe could not run). */
  readonly release: (accountId: AccountId, worker: string) => Effect.Effect<void>
  /** The project's open issues, oldest first. */
  readonly listOpen: (projectId: ProjectId) => Effect.Effect<ReadonlyArray<ConnectionIssue>>
  /** The account's failed deliveries whose error is auth_expired: what a reconnect lets go out again. */
  readonly authFailures: (projectId: ProjectId, accountId: AccountId) => Effect.Effect<ReadonlyArray<DeliveryId>>
  /** The account was reconnected: its reconnect-kind issues are resolved at `at` and it is checked next. */
  readonly reconnected: (accountId: AccountId, at: DateTime.Utc) => Effect.Effect<void>
}>() {}
