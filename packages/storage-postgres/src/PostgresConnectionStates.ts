import { SqlClient } from "@effect/sql"
import { ConnectionStates, type Platform, type ProjectId, traced } from "@herald/core"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { CredentialsCipher } from "./CredentialsCipher.js"
import { orDieInfra } from "./Infra.js"

interface StateRow {
  readonly state: string
  readonly project_id: ProjectId
  readonly platform: Platform
  readonly caller: string
  readonly code_verifier: string
  readonly redirect_uri: string
  readonly expires_at: Date
  readonly carried: string | null
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cipher = yield* CredentialsCipher
  return ConnectionStates.of({
    save: traced("ConnectionStates.save")(function*(pending) {
      yield* orDieInfra(sql`
        INSERT INTO oauth_states (state, project_id, platform, caller, code_verifier, redirect_uri, expires_at, carried)
        VALUES (${pending.state}, ${pending.projectId}, ${pending.platform}, ${pending.caller},
          ${cipher.seal(Redacted.value(pending.codeVerifier), pending.state)}, ${pending.redirectUri},
          ${DateTime.toDateUtc(pending.expiresAt)},
          ${pending.carried === null ? null : cipher.seal(Redacted.value(pending.carried), `${pending.state}:carried`)})`)
    }),
    take: traced("ConnectionStates.take")(function*(state, now) {
      // DELETE … RETURNING: of two callbacks with one state, exactly one gets the row.
      const rows = yield* orDieInfra(sql<StateRow>`
        DELETE FROM oauth_states WHERE state = ${state}
        RETURNING state, project_id, platform, caller, code_verifier, redirect_uri, expires_at, carried`)
      // States nobody came back for are dropped an hour after they lapse (an expired one is still
      // worth telling apart from an unknown one for a while).
      yield* orDieInfra(sql`DELETE FROM oauth_states WHERE expires_at < ${DateTime.toDateUtc(DateTime.subtract(now, { hours: 1 }))}`)
      const row = rows[0]
      if (row === undefined) return Option.none()
      return Option.some({
        state: row.state,
        projectId: row.project_id,
        platform: row.platform,
        caller: row.caller,
        codeVerifier: Redacted.make(cipher.open(row.code_verifier, row.state)),
        redirectUri: row.redirect_uri,
        expiresAt: DateTime.unsafeFromDate(new Date(row.expires_at)),
        carried: row.carried === null ? null : Redacted.make(cipher.open(row.carried, `${row.state}:carried`))
      })
    })
  })
})

/** ConnectionStates over oauth_states; the PKCE verifier and what the start carried sealed like credentials. */
export const PostgresConnectionStates = Layer.effect(ConnectionStates, make)
