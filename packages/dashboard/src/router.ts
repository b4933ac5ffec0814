import { useEffect, useState } from "preact/hooks"

/**
 * Routing by the URL's fragment (#/posts/<id>): the server serves one index.html at /dashboard/,
 * and a reload or a shared link lands on the same page.
 */
export interface Location {
  /** The first path segment: which page. */
  readonly page: string
  /** The segments after it (a post's id). */
  readonly params: ReadonlyArray<string>
}

export const parseHash = (hash: string): Location => {
  const [page = "", ...params] = hash.replace(/^#\/?/, "").split("/").filter((part) => part !== "").map(decodeURIComponent)
  return { page, params }
}

export const href = (page: string, ...params: ReadonlyArray<string>) =>
  `#/${[page, ...params].map(encodeURIComponent).join("/")}`

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
