import { del, get, request, useCsrfToken } from "./api.js"

/** Who is signed in, as GET /dashboard/session tells it (never the credential itself). */
export interface Session {
  readonly role: "operator" | "reviewer"
  readonly csrf_token: string
  readonly expires_at: string
  readonly project_id?: string
  readonly key_id?: string
  readonly key_name?: string
  readonly scopes?: ReadonlyArray<string>
}

const started = (session: Session) => {
  useCsrfToken(session.csrf_token)
  return session
}

/** The session the cookie holds, or null when there is none (or it has ended). */
export const currentSession = (): Promise<Session | null> =>
  get<Session>("/dashboard/session").then(started, () => null)

export const signIn = (credential: string): Promise<Session> =>
  request<Session>("POST", "/dashboard/session", { credential }, false).then(started)

export const signOut = async (): Promise<void> => {
  await del<void>("/dashboard/session")
  useCsrfToken("")
}

/** The operator acts with every scope in the project it opened; a reviewer with its key's. */
export const canApprove = (session: Session) => session.role === "operator" || (session.scopes ?? []).includes("posts:approve")
