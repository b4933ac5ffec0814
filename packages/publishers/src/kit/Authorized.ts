import { AccountTokens, type Credentials, type PlatformCallFailed, type SocialAccount } from "@herald/core"
import { Effect } from "effect"
import { PlatformRefusal } from "./Failures.js"

/**
 * Runs `call` with the account's current credentials (refreshed ahead of expiry by
 * AccountTokens). When the platform refuses the token (a PlatformRefusal of category
 * auth_expired), the token is refreshed once (unless another caller already did) and the call
 * made once more; a second refusal stands, and the dispatcher marks the account needs_reconnect.
 */
export const authorized = <A, E, R>(
  account: SocialAccount,
  call: (credentials: Credentials) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | PlatformCallFailed, R | AccountTokens> =>
  Effect.gen(function*() {
    const tokens = yield* AccountTokens
    const credentials = yield* tokens.current(account)
    return yield* call(credentials).pipe(
      Effect.catchIf(
        (error): error is E & PlatformRefusal => error instanceof PlatformRefusal && error.error.category === "auth_expired",
        () => Effect.flatMap(tokens.afterRefusal(account, credentials), call)
      )
    )
  })

/** The access token of OAuth-route credentials (AccountTokens' conventions). */
export const accessToken = (credentials: Credentials): string =>
  typeof credentials.access_token === "string" ? credentials.access_token : ""
