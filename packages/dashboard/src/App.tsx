import { useEffect, useRef, useState } from "preact/hooks"
import { actOn, get, whenSessionEnds } from "./api.js"
import { SignIn } from "./pages/SignIn.js"
import { href, hrefIn, useLocation } from "./router.js"
import { routesFor } from "./routes.js"
import { currentSession, type Session, signOut } from "./session.js"
import type { AdminProject } from "./types.js"

/** The project the operator has open, by name once the admin API has told it (its id until then). */
const OpenProject = ({ id }: { readonly id: string }) => {
  const [name, setName] = useState<string | null>(null)
  useEffect(() => {
    setName(null)
    void get<AdminProject>(`/admin/v1/projects/${encodeURIComponent(id)}`).then((project) => setName(project.name), () => setName(null))
  }, [id])
  return (
    <span class="open-project">
      Project: <strong>{name ?? id}</strong>
      <a href={hrefIn(null, "projects")}>Switch project</a>
    </span>
  )
}

/** The signed-in frame: navigation, the page the fragment names, sign-out. */
const Shell = ({ session, onSignedOut }: { readonly session: Session; readonly onSignedOut: () => void }) => {
  const location = useLocation()
  // Only the operator's session names its project in the URL; a reviewer's key has its own.
  const project = session.role === "operator" ? location.project : null
  // Set before the page renders, so its first calls already carry the header.
  actOn(project)
  const available = routesFor(session, project)
  const route = available.find((candidate) => candidate.page === location.page) ?? available[0]!
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    document.title = `${route.title} · Herald`
    heading.current?.focus()
  }, [route.page, project])
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
        {project !== null && <OpenProject id={project} />}
        <span class="who">
          {session.role === "operator" ? "Operator" : `Reviewer${session.key_name ? ` (${session.key_name})` : ""}`}
          <button type="button" class="link" onClick={() => signOut().finally(onSignedOut)}>Sign out</button>
        </span>
      </header>
      <main id="main">
        <h1 tabIndex={-1} ref={heading}>{route.title}</h1>
        <Page key={project ?? ""} session={session} params={location.params} />
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
