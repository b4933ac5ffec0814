import { useState } from "preact/hooks"
import { ApiError } from "../api.js"
import { type Session, signIn } from "../session.js"

/**
 * The admin token (the operator) or a human API key (a reviewer). The credential goes to the
 * server once and is dropped: the session cookie stands for it afterwards.
 */
export const SignIn = ({ onSignedIn, notice }: { readonly onSignedIn: (session: Session) => void; readonly notice?: string | undefined }) => {
  const [credential, setCredential] = useState("")
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const session = await signIn(credential)
      setCredential("")
      onSignedIn(session)
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main id="main" class="signin">
      <h1>Sign in to Herald</h1>
      {notice !== undefined && <p class="notice" role="status">{notice}</p>}
      <form onSubmit={submit}>
        <label for="credential">Admin token or human API key</label>
        <input
          id="credential"
          name="credential"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={credential}
          onInput={(event) => setCredential(event.currentTarget.value)}
          aria-describedby={error === null ? "credential-help" : "credential-help credential-error"}
          aria-invalid={error !== null}
        />
        <p id="credential-help" class="help">
          The operator signs in with the admin token (every project); a reviewer with a human key (its project). Agent keys cannot sign in.
        </p>
        {error !== null && <p id="credential-error" class="error" role="alert">{error}</p>}
        <button type="submit" disabled={busy}>{busy ? "Signing in…" : "Sign in"}</button>
      </form>
    </main>
  )
}
