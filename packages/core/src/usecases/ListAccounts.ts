import { Effect, Schema } from "effect"
import { requireScope } from "../Authorization.js"
import type { Principal } from "../Principal.js"
import { AccountView, toAccountView } from "../PostingRules.js"
import { AccountStore } from "../ports/AccountStore.js"
import { traced } from "../Tracing.js"
import { loadProject } from "./ProjectContext.js"

/** GET /social-accounts's reply ("AccountRow": the published document's name for an account view). */
export const AccountListReply = Schema.Struct({ data: Schema.Array(AccountView.annotations({ identifier: "AccountRow" })) })
export type AccountListReply = typeof AccountListReply.Type

/** The caller's project and all its accounts, for the read endpoints (posts:read). */
export const readProject = traced("readProject")(function*(principal: Principal) {
  yield* requireScope(principal, "posts:read")
  return yield* Effect.all([loadProject(principal), AccountStore.pipe(Effect.flatMap((store) => store.list(principal.projectId)))])
})

/** GET /social-accounts: every connected account with its limits and capabilities. */
export const listSocialAccounts = traced("listSocialAccounts")(function*(principal: Principal) {
  const [project, accounts] = yield* readProject(principal)
  return { data: accounts.map((account) => toAccountView(account, accounts, project.signature)) } satisfies AccountListReply
})
