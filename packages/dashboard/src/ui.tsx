import type { ComponentChildren } from "preact"
import { useCallback, useEffect, useState } from "preact/hooks"
import { ApiError } from "./api.js"

/** A call's state for a page: loading, its value, or the error to show (with a retry). */
export const useLoad = <T,>(load: () => Promise<T>, deps: ReadonlyArray<unknown>) => {
  const [state, setState] = useState<{ value?: T; error?: ApiError; loading: boolean }>({ loading: true })
  const reload = useCallback(() => {
    setState((previous) => ({ ...previous, loading: true }))
    return load().then(
      (value) => setState({ value, loading: false }),
      (error) => setState({ error: asApiError(error), loading: false })
    )
  }, deps)
  useEffect(() => {
    void reload()
  }, [reload])
  return { ...state, reload }
}

export const asApiError = (error: unknown): ApiError =>
  error instanceof ApiError ? error : new ApiError(0, "client_error", String(error))

/** An error reply as a sentence, with each field at fault when the reply names them. */
export const ErrorNote = ({ error, onRetry }: { readonly error: ApiError; readonly onRetry?: () => void }) => (
  <div class="error" role="alert">
    <p>{error.message}</p>
    {error.violations.length > 0 && (
      <ul>
        {error.violations.map((violation, index) => (
          <li key={index}><code>{violation.field}</code>{violation.account !== null ? ` (${violation.account})` : ""}: {violation.message}</li>
        ))}
      </ul>
    )}
    {onRetry !== undefined && <button type="button" onClick={onRetry}>Try again</button>}
  </div>
)

export const Empty = ({ children }: { readonly children: ComponentChildren }) => <p class="empty">{children}</p>

export const Loading = () => <p class="loading" aria-busy="true">Loading…</p>

const statusNames: Record<string, string> = {
  pending_approval: "Waiting for approval",
  scheduled: "Scheduled",
  processing: "Publishing",
  posted: "Posted",
  partial: "Partly posted",
  failed: "Failed",
  rejected: "Rejected",
  draft: "Draft"
}
export const statusName = (status: string) => statusNames[status] ?? status.replaceAll("_", " ")

export const StatusBadge = ({ status }: { readonly status: string }) => <span class={`badge status-${status}`}>{statusName(status)}</span>

/** An instant in the viewer's zone and in UTC: the API stores and answers UTC. */
export const When = ({ iso }: { readonly iso: string }) => {
  const date = new Date(iso)
  return <time dateTime={iso} title={`${date.toISOString().replace("T", " ").slice(0, 16)} UTC`}>{date.toLocaleString()}</time>
}

/** A message for screen readers (and sighted users) after an action. */
export const Notice = ({ text }: { readonly text: string | null }) => <p class="notice" role="status" aria-live="polite">{text ?? ""}</p>
