/**
 * The one place Meta's API versions are pinned. Meta retires a Graph API version about two years
 * after its release, and a call to a retired version is refused (or silently served by the
 * oldest live one): bump these with the changelog (developers.facebook.com/docs/graph-api/changelog)
 * and re-read its notes for the calls Herald makes.
 */
export const graphVersions = {
  /** graph.threads.net: the Threads API has one version so far. */
  threads: "v1.0",
  /** graph.facebook.com (Facebook Pages, Instagram through Facebook Login): v26.0, released 2026-07-29. */
  facebook: "v26.0",
  /** graph.instagram.com (Instagram Login) follows the Graph API's versions. */
  instagram: "v26.0"
} as const

export type GraphHost = keyof typeof graphVersions

/** A path on a Graph host under its pinned version: /v1.0/me. */
export const versioned = (host: GraphHost, path: string): string => `/${graphVersions[host]}/${path.replace(/^\/+/, "")}`
