import { useEffect, useRef, useState } from "preact/hooks"
import { whenSessionEnds } from "./api.js"
import { SignIn } from "./pages/SignIn.js"
import { href, useLocation } from "./router.js"
import { routesFor } from "./routes.js"
import { currentSession, type Session, signOut } from "./session.js"

/** The signed-in frame: navigation, the page the fragment names, sign-out. */
const Shell = ({ session, onSignedOut }: { readonly session: Session; readonly onSignedOut: () => void }) => {
  const location = useLocation()
  const available = routesFor(session)
  const route = available.find((candidate) => candidate.page === location.page) ?? available[0]!
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    document.title = `${route.title} · Herald`
    heading.current?.focus()
  }, [route.page])
  const Page = route.component
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand">Herald</span>
        <nav aria-label="Main">
          <ul>
            {available.filter((candidate) => candidate.nav).map((candidate) => (
              <li key={candidate.page}>
                <a href={href(candidate.page)} aria-current={candidate.page === route.page ? "page" : undefined}>{candidate.title}</a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {session.role === "operator" ? "Operator" : `Reviewer${session.key_name ? ` (${session.key_name})` : ""}`}
          <button type="button" class="link" onClick={() => signOut().finally(onSignedOut)}>Sign out</button>
        </span>
      </header>
      <main id="main">
        <h1 tabIndex={-1} ref={heading}>{route.title}</h1>
        <Page session={session} params={location.params} />
      </main>
    </>
  )
}

export const App = () => {
  const [session, setSession] = useState<Session | null | undefined>(undefined)
  const [ended, setEnded] = useState(false)
  useEffect(() => {
    whenSessionEnds(() => {
      setEnded(true)
      setSession(null)
    })
    void currentSession().then(setSession)
  }, [])
  if (session === undefined) return <main id="main" class="loading" aria-busy="true">Loading…</main>
  if (session === null) {
    return (
      <SignIn
        notice={ended ? "Your session has ended; sign in again." : undefined}
        onSignedIn={(signedIn) => {
          setEnded(false)
          setSession(signedIn)
        }}
      />
    )
  }
  return <Shell session={session} onSignedOut={() => setSession(null)} />
}
