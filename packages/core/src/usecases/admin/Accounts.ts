import { DateTime, Effect, Schema } from "effect"
import { type AccountStatus, type ConnectionRoute, SocialAccount } from "../../Account.js"
import { AccountId, type ProjectId } from "../../Ids.js"
import type { Platform } from "../../Platform.js"
import { AccountAdmin, AccountNotFound } from "../../ports/AccountAdmin.js"
import { AccountStore } from "../../ports/AccountStore.js"
import { ConnectionChecks } from "../../ports/ConnectionChecks.js"
import { requeueFailed } from "../RetryDelivery.js"
import { IdGenerator } from "../../ports/IdGenerator.js"
import type { AggregatorKeys } from "../../ports/OAuthProviders.js"
import { directConnectionRefusal, keyConnection } from "./Connections.js"
import { getProject } from "./Projects.js"

/** An aggregator route was asked for without the aggregator's keys, which are what connects it. */
export class AccountRouteNotSupported extends Schema.TaggedError<AccountRouteNotSupported>()("AccountRouteNotSupported", {
  route: Schema.String
}) {
  override get message(): string {
    return `route ${this.route} is connected with the aggregator's keys: send api_key (and profile_key for a user profile); simulator accounts connect by name, direct ones through accounts/oauth or accounts/login`
  }
}

export interface AccountToConnect {
  readonly platform: Platform
  /** A leading @ is dropped. */
  readonly username: string
  readonly route: ConnectionRoute
  /** The aggregator's keys, for the aggregator routes (ignored elsewhere). */
  readonly keys?: AggregatorKeys | undefined
}

export const listAccounts = (projectId: ProjectId) =>
  Effect.zipRight(getProject(projectId), Effect.flatMap(AccountStore, (store) => store.list(projectId)))

export const connectAccount = Effect.fnUntraced(function*(projectId: ProjectId, connection: AccountToConnect) {
  yield* getProject(projectId)
  // A direct account is connected with the platform's consent (or a login), never by name alone.
  if (connection.route === "direct" || connection.route === "facebook_login") return yield* directConnectionRefusal(connection.platform)
  if (connection.route === "aggregator" || connection.route === "aggregator_login") {
    if (connection.keys === undefined) return yield* Effect.fail(new AccountRouteNotSupported({ route: connection.route }))
    return yield* keyConnection(projectId, connection.platform, connection.route, connection.username, connection.keys)
  }
  const account = new SocialAccount({
    id: AccountId.make(yield* Effect.flatMap(IdGenerator, (ids) => ids.uuid)),
    projectId,
    platform: connection.platform,
    username: connection.username.replace(/^@/, ""),
    route: connection.route,
    status: "active"
  })
  yield* Effect.flatMap(AccountAdmin, (admin) => admin.connect(account, {}))
  return account
})

/** The project (ProjectNotFound when there is none) and its account (AccountNotFound when it is not this project's). */
const projectAccount = Effect.fnUntraced(function*(projectId: ProjectId, id: AccountId) {
  const project = yield* getProject(projectId)
  const account = (yield* Effect.flatMap(AccountStore, (store) => store.list(projectId))).find((candidate) => candidate.id === id)
  if (account === undefined) return yield* Effect.fail(new AccountNotFound({ accountId: id }))
  return { project, account }
})

/**
 * The account with its new status; AccountNotFound when it is not this project's. Back to active
 * is a reconnect: the incidents a reconnect answers close, and the account is checked next.
 */
export const setAccountStatus = Effect.fnUntraced(function*(projectId: ProjectId, id: AccountId, status: AccountStatus) {
  const { account } = yield* projectAccount(projectId, id)
  yield* Effect.flatMap(AccountAdmin, (admin) => admin.setStatus(account.id, status))
  if (status === "active" && account.status !== "active") {
    const now = yield* DateTime.now
    yield* Effect.flatMap(ConnectionChecks, (checks) => checks.reconnected(account.id, now))
  }
  return new SocialAccount({ ...account, status })
})

/**
 * Queues again every failed delivery of the account that failed auth_expired (after a reconnect);
 * how many went back in the queue. One whose post changed meanwhile is left as it is.
 */
export const retryAuthFailures = Effect.fnUntraced(function*(projectId: ProjectId, id: AccountId) {
  const { account, project } = yield* projectAccount(projectId, id)
  const failed = yield* Effect.flatMap(ConnectionChecks, (checks) => checks.authFailures(projectId, account.id))
  const queued = yield* Effect.forEach(failed, (deliveryId) =>
    requeueFailed(project, deliveryId, "human").pipe(
      Effect.as(1),
      Effect.catchTags({ StateConflict: () => Effect.succeed(0), DeliveryNotFound: () => Effect.succeed(0), NotEditable: () => Effect.succeed(0), AgentCannotApprove: () => Effect.succeed(0) })
    ))
  return { queued: queued.reduce((sum, one) => sum + one, 0) }
})
