import { Context, type DateTime, type Effect, type Option, type Redacted } from "effect"
import type { ProjectId } from "../Ids.js"
import type { Platform } from "../Platform.js"

/**
 * A consent page opened and not yet answered: what the callback needs to finish the connection,
 * found by the `state` the platform hands back.
 */
export interface PendingConnection {
  readonly state: string
  readonly projectId: ProjectId
  readonly platform: Platform
  /** Who started it (the admin API, the SDK host), kept for the record. */
  readonly caller: string
  /** The PKCE code verifier, sent with the code to the token endpoint. */
  readonly codeVerifier: Redacted.Redacted<string>
  readonly redirectUri: string
  readonly expiresAt: DateTime.Utc
  /** What the platform's start handed to its exchange (StartedAuthorization.carried), sealed at rest; null when nothing. */
  readonly carried: Redacted.Redacted<string> | null
}

/** Consent pages waiting for their callback. A state is used at most once. */
export class ConnectionStates extends Context.Tag("@herald/core/ConnectionStates")<ConnectionStates, {
  readonly save: (pending: PendingConnection) => Effect.Effect<void>
  /**
   * Takes the state away and returns it: a second take of the same state finds nothing, even
   * from another process. States expired before `now` are dropped on the way.
   */
  readonly take: (state: string, now: DateTime.Utc) => Effect.Effect<Option.Option<PendingConnection>>
}>() {}
