import { useEffect, useState } from "preact/hooks"
import { type ApiError, post } from "./api.js"
import type { GuardrailVerdict } from "./types.js"
import { asApiError } from "./ui.js"

/** The guardrails' verdict on a text, as POST /guardrails/check gives it. */
export const checkGuardrails = (caption: string) => post<GuardrailVerdict>("/api/v1/guardrails/check", { caption })

export const VerdictView = ({ verdict }: { readonly verdict: GuardrailVerdict }) =>
  verdict.allowed
    ? <p class="verdict ok">Guardrails: passed ({verdict.rules_checked.length} rule{verdict.rules_checked.length === 1 ? "" : "s"} checked)</p>
    : (
      <div class="verdict blocked">
        <p>Guardrails: blocked</p>
        <ul>
          {verdict.violations.map((violation, index) => <li key={index}><strong>{violation.rule}</strong>: {violation.detail}</li>)}
        </ul>
      </div>
    )

/** The verdict on a post's caption, checked once when shown. */
export const CaptionVerdict = ({ caption }: { readonly caption: string | null }) => {
  const [verdict, setVerdict] = useState<GuardrailVerdict | ApiError | null>(null)
  useEffect(() => {
    if (caption === null || caption.trim() === "") return
    checkGuardrails(caption).then(setVerdict, (error) => setVerdict(asApiError(error)))
  }, [caption])
  if (caption === null || caption.trim() === "") return <p class="verdict">Guardrails: no caption to check.</p>
  if (verdict === null) return <p class="verdict" aria-busy="true">Guardrails: checking…</p>
  if ("allowed" in verdict) return <VerdictView verdict={verdict} />
  return <p class="verdict">Guardrails: not available ({verdict.message})</p>
}
