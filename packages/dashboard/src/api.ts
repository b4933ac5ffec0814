/**
 * The dashboard's one way to the server: the REST API (/api/v1), the admin API (/admin/v1) and
 * the session endpoints (/dashboard/session), all same-origin with the session cookie. The CSRF
 * token lives in this module's memory only (never in storage) and goes on every change.
 */

export interface Violation {
  readonly field: string
  readonly account: string | null
  readonly message: string
}

/** An error reply ({ error, code, violations? }), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly violations: ReadonlyArray<Violation> = []
  ) {
    super(message)
  }
}

let csrfToken = ""
let onSessionEnded: () => void = () => {}
/** The project the operator's calls to the REST API act on (the Herald-Project header); null: none. */
let actingOn: string | null = null

export const useCsrfToken = (token: string) => {
  csrfToken = token
}
/**
 * The operator's REST calls act on `project` from now on (docs/api.md, "The operator"); null for a
 * reviewer, whose key has its project (the header with it is refused).
 */
export const actOn = (project: string | null) => {
  actingOn = project
}
/** Called when a reply says the session is over (expired, signed out elsewhere, key revoked). */
export const whenSessionEnds = (callback: () => void) => {
  onSessionEnded = callback
}

const changes = (method: string) => method !== "GET" && method !== "HEAD"

const projectHeaderFor = (path: string): Record<string, string> =>
  actingOn !== null && path.startsWith("/api/") ? { "herald-project": actingOn } : {}

const headersFor = (method: string, json: boolean, path: string): Record<string, string> => ({
  accept: "application/json",
  ...(json ? { "content-type": "application/json" } : {}),
  ...(changes(method) && csrfToken !== "" ? { "x-csrf-token": csrfToken } : {}),
  ...projectHeaderFor(path)
})

/**
 * Where the page can show a file of the REST API from: its own path for a reviewer (the cookie goes
 * with an `<img>`'s request), or, for the operator, the bytes read with the Herald-Project header
 * into a blob URL (an element's request cannot carry a header).
 */
export const fileSource = async (path: string): Promise<string> => {
  if (actingOn === null) return path
  const reply = await fetch(path, { credentials: "same-origin", headers: projectHeaderFor(path) })
  if (!reply.ok) throw new ApiError(reply.status, `http_${reply.status}`, reply.statusText, [])
  return URL.createObjectURL(await reply.blob())
}

interface ErrorBody {
  readonly error?: string
  readonly code?: string
  readonly violations?: ReadonlyArray<Violation>
}

const errorOf = (status: number, statusText: string, body: ErrorBody) =>
  new ApiError(status, body.code ?? `http_${status}`, body.error ?? statusText, body.violations ?? [])

/** A call's reply as T; a 401 on a signed-in call (not on the sign-in itself) means the session is over. */
export const request = async <T>(method: string, path: string, body?: unknown, signedIn = true): Promise<T> => {
  let reply: Response
  try {
    reply = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: headersFor(method, body !== undefined, path),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {})
    })
  } catch {
    throw new ApiError(0, "network_error", "Herald cannot be reached; check the connection and try again.")
  }
  if (!reply.ok) {
    const error = errorOf(reply.status, reply.statusText, await reply.json().catch(() => ({})))
    if (reply.status === 401 && signedIn) onSessionEnded()
    throw error
  }
  return (reply.status === 204 ? undefined : await reply.json()) as T
}

export const get = <T>(path: string) => request<T>("GET", path)
export const post = <T>(path: string, body?: unknown) => request<T>("POST", path, body ?? {})
export const patch = <T>(path: string, body: unknown) => request<T>("PATCH", path, body)
export const del = <T>(path: string) => request<T>("DELETE", path)

/** POST /api/v1/media (multipart, field "file"), reporting progress (fetch cannot report an upload's). */
export const upload = <T>(file: File, onProgress: (fraction: number) => void): Promise<T> =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open("POST", "/api/v1/media")
    xhr.setRequestHeader("accept", "application/json")
    xhr.setRequestHeader("x-csrf-token", csrfToken)
    for (const [name, value] of Object.entries(projectHeaderFor("/api/v1/media"))) xhr.setRequestHeader(name, value)
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total)
    }
    xhr.onerror = () => reject(new ApiError(0, "network_error", "the upload was interrupted"))
    xhr.onload = () => {
      let body: unknown = {}
      try {
        body = JSON.parse(xhr.responseText)
      } catch {
        // not JSON: the status alone says what happened
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T)
      else reject(errorOf(xhr.status, xhr.statusText, body as ErrorBody))
    }
    const form = new FormData()
    form.append("file", file)
    xhr.send(form)
  })
