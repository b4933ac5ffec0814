/**
 * Bluesky's refusals in Herald's error taxonomy (docs/networks/bluesky.md has the table). The
 * XRPC envelope's error name decides first; the status decides for names it does not list.
 */
import type { Headers } from "@effect/platform/Headers"
import { type DeliveryError, type DeliveryErrorCategory, PlatformCallFailed } from "@herald/core"
import { categoryOfStatus } from "../kit/index.js"

const categories: Readonly<Record<string, DeliveryErrorCategory>> = {
  // 400s, not 401s, on the PDS: the access token expired or is not one it issued.
  ExpiredToken: "auth_expired",
  InvalidToken: "auth_expired",
  AuthenticationRequired: "auth_expired",
  AuthMissing: "auth_expired",
  AuthFactorTokenRequired: "auth_expired",
  AccountTakedown: "auth_expired",
  AccountDeactivated: "auth_expired",
  AccountNotFound: "auth_expired",
  RateLimitExceeded: "rate_limited",
  BlobTooLarge: "media_rejected",
  PayloadTooLarge: "media_rejected",
  InvalidMimeType: "media_rejected",
  BlobNotFound: "media_rejected",
  RecordNotFound: "not_found",
  RepoNotFound: "not_found"
}

const hints: Readonly<Record<string, string>> = {
  AuthFactorTokenRequired: "the account asks for an email code at login; connect it with an app password instead"
}

/** The XRPC error envelope, when the body is one. */
const envelope = (body: unknown): { readonly error?: string; readonly message?: string } =>
  typeof body === "object" && body !== null
    ? {
      ...("error" in body && typeof body.error === "string" ? { error: body.error } : {}),
      ...("message" in body && typeof body.message === "string" ? { message: body.message } : {})
    }
    : {}

/** A refused XRPC call as a DeliveryError: Bluesky's error name as the code, its message kept. */
export const classify = (reply: { readonly status: number; readonly body: unknown; readonly headers: Headers }): DeliveryError => {
  const { error, message } = envelope(reply.body)
  const code = error ?? `http_${reply.status}`
  const text = message ?? (typeof reply.body === "string" && reply.body !== "" ? reply.body.slice(0, 200) : `Bluesky answered ${reply.status}`)
  return {
    category: categories[code] ?? categoryOfStatus(reply.status),
    code,
    message: hints[code] === undefined ? text : `${text} (${hints[code]})`
  }
}

/** Stored credentials that hold no Bluesky session: only a reconnect helps. */
export const notASession = (detail: string): PlatformCallFailed =>
  new PlatformCallFailed({ error: { category: "auth_expired", code: "InvalidToken", message: detail }, retryAfterMs: null })

/**
 * The account a session belongs to is not active (getSession and createSession say `active: false`
 * for an account taken down or deactivated): its status as the code, or null when it is active.
 */
export const inactiveAccount = (session: { readonly handle: string; readonly active?: boolean; readonly status?: string }) =>
  session.active === false
    ? { code: session.status ?? "AccountInactive", message: `the Bluesky account ${session.handle} is not active (${session.status ?? "inactive"})` }
    : null
