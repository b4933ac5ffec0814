import { get, post } from "../api.js"
import type { PageProps } from "../routes.js"
import { Empty, ErrorNote, Loading, Notice, useLoad, When } from "../ui.js"
import { useState } from "preact/hooks"

/** GET /social-accounts and GET /connection-issues (docs/connection-health.md), as the reviewer's key reads them. */
interface Account {
  readonly id: string
  readonly platform: string
  readonly username: string
  readonly status: string
  readonly ref: string
  readonly route: string
}
interface Issue {
  readonly id: string
  readonly account: { readonly id: string; readonly ref: string }
  readonly kind: string
  readonly severity: string
  readonly detail: string
  readonly action: string
  readonly opened_at: string
}

const actionText: Record<string, string> = {
  reconnect: "Reconnect the account: the operator does it on the project's Settings page (the platform's consent).",
  grant_permissions: "Reconnect and grant the permission the detail names.",
  check_account: "Check the account on the platform itself.",
  wait: "Nothing to do: Herald asks again later."
}

export const Accounts = (_: PageProps) => {
  const data = useLoad(() =>
    Promise.all([
      get<{ data: ReadonlyArray<Account> }>("/api/v1/social-accounts"),
      get<{ data: ReadonlyArray<Issue> }>("/api/v1/connection-issues")
    ]), [])
  const [notice, setNotice] = useState<string | null>(null)
  const checkNow = () =>
    post<{ summary: { checked: number; healthy: number } }>("/api/v1/connection-issues").then((reply) => {
      setNotice(`Checked ${reply.summary.checked} accounts: ${reply.summary.healthy} healthy.`)
      return data.reload()
    })
  if (data.value === undefined) return data.error === undefined ? <Loading /> : <ErrorNote error={data.error} onRetry={data.reload} />
  const [accounts, issues] = data.value
  return (
    <>
      <button type="button" onClick={() => void checkNow()}>Check connections now</button>
      <Notice text={notice} />
      <h2>Open connection issues</h2>
      {issues.data.length === 0 ? <Empty>No open issue: every account answered its last check.</Empty> : (
        <ul class="cards">
          {issues.data.map((issue) => (
            <li key={issue.id} class="card">
              <strong>{issue.account.ref}</strong>: {issue.kind.replaceAll("_", " ")} ({issue.severity}), since <When iso={issue.opened_at} />
              <p>{issue.detail}</p>
              <p class="help">{actionText[issue.action] ?? issue.action}</p>
            </li>
          ))}
        </ul>
      )}
      <h2>Accounts</h2>
      {accounts.data.length === 0 ? <Empty>No connected account.</Empty> : (
        <table>
          <thead><tr><th scope="col">Account</th><th scope="col">Route</th><th scope="col">Status</th></tr></thead>
          <tbody>
            {accounts.data.map((account) => (
              <tr key={account.id}>
                <th scope="row">{account.ref}</th><td>{account.route}</td><td>{account.status.replaceAll("_", " ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  )
}
