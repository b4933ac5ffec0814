import { useEffect, useState } from "preact/hooks"

/**
 * Routing by the URL's fragment (#/posts/<id>): the server serves one index.html at /dashboard/,
 * and a reload or a shared link lands on the same page. The operator's open project leads the
 * fragment (#/project/<id>/queue): an id, not a credential, kept where a reload finds it.
 */
export interface Location {
  /** The project the operator opened (Projects → Open); null otherwise. */
  readonly project: string | null
  /** The first path segment after it: which page. */
  readonly page: string
  /** The segments after it (a post's id). */
  readonly params: ReadonlyArray<string>
}

export const parseHash = (hash: string): Location => {
  const parts = hash.replace(/^#\/?/, "").split("/").filter((part) => part !== "").map(decodeURIComponent)
  const project = parts[0] === "project" && parts.length > 1 ? parts[1]! : null
  const [page = "", ...params] = project === null ? parts : parts.slice(2)
  return { project, page, params }
}

const segments = (project: string | null, page: string, params: ReadonlyArray<string>) =>
  `#/${[...(project === null ? [] : ["project", project]), page, ...params].map(encodeURIComponent).join("/")}`

/** A link to a page, in the project open now (if any). */
export const href = (page: string, ...params: ReadonlyArray<string>) =>
  segments(parseHash(window.location.hash).project, page, params)

/** A link to a page of `project` (null: outside any project). */
export const hrefIn = (project: string | null, page: string, ...params: ReadonlyArray<string>) => segments(project, page, params)

export const navigate = (page: string, ...params: ReadonlyArray<string>) => {
  window.location.hash = href(page, ...params)
}

export const useLocation = (): Location => {
  const [location, setLocation] = useState(() => parseHash(window.location.hash))
  useEffect(() => {
    const changed = () => setLocation(parseHash(window.location.hash))
    window.addEventListener("hashchange", changed)
    return () => window.removeEventListener("hashchange", changed)
  }, [])
  return location
}
