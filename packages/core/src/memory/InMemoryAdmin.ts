import { Effect, Layer, Option, Redacted } from "effect"
import { SocialAccount } from "../Account.js"
import { AccountAdmin, AccountNotFound } from "../ports/AccountAdmin.js"
import { ApiKeyHash } from "../ports/ApiKeyStore.js"
import { ConnectionStates } from "../ports/ConnectionStates.js"
import { ProjectAdmin, ProjectNotFound } from "../ports/ProjectAdmin.js"
import { SecretMint } from "../ports/SecretMint.js"
import { WebhookDestinationRefused, WebhookDestinations } from "../ports/WebhookDestinations.js"
import { type SigningSecrets, WebhookEndpoint, WebhookEndpointNotFound, WebhookEndpoints } from "../ports/WebhookEndpoints.js"
import { makeInMemoryConnections } from "./InMemoryConnections.js"
import type { InMemoryData } from "./InMemoryStores.js"

/**
 * The admin ports over the same data the in-memory stores read, with the Postgres adapters'
 * semantics, and the connection ports a reconnect reaches (makeInMemoryConnections).
 */
export const makeInMemoryAdmin = (data: InMemoryData) => {
  const semaphores = new Map<string, Effect.Semaphore>()
  const renewals = (id: string) => {
    const existing = semaphores.get(id)
    if (existing !== undefined) return existing
    const made = Effect.unsafeMakeSemaphore(1)
    semaphores.set(id, made)
    return made
  }
  const webhooks = new Map<string, { endpoint: WebhookEndpoint; secrets: SigningSecrets }>()
  const ownedWebhook = (projectId: string, id: string) => {
    const stored = webhooks.get(id)
    return stored !== undefined && stored.endpoint.projectId === projectId ? stored : undefined
  }
  return Layer.mergeAll(
    makeInMemoryConnections(data),
    Layer.succeed(ProjectAdmin, ProjectAdmin.of({
      create: (project) => Effect.sync(() => void data.projects.set(project.id, project)),
      update: (project) =>
        data.projects.has(project.id)
          ? Effect.sync(() => void data.projects.set(project.id, project))
          : Effect.fail(new ProjectNotFound({ projectId: project.id })),
      list: Effect.sync(() => [...data.projects.values()])
    })),
    Layer.succeed(AccountAdmin, AccountAdmin.of({
      connect: (account, credentials) =>
        Effect.sync(() => {
          data.accounts.set(account.id, account)
          data.credentials.set(account.id, credentials)
        }),
      setStatus: (id, status) =>
        Effect.suspend(() => {
          const account = data.accounts.get(id)
          return account === undefined
            ? Effect.fail(new AccountNotFound({ accountId: id }))
            : Effect.sync(() => void data.accounts.set(id, new SocialAccount({ ...account, status })))
        }),
      credentialsFor: (id) => Effect.sync(() => Option.fromNullable(data.credentials.get(id))),
      connectPlatformAccount: (account, credentials, platformAccountId) =>
        Effect.sync(() => {
          const key = `${account.projectId} ${account.platform} ${account.route} ${platformAccountId}`
          const existing = data.platformAccounts.get(key)
          const connected = new SocialAccount({ ...account, id: existing ?? account.id })
          data.platformAccounts.set(key, connected.id)
          data.accounts.set(connected.id, connected)
          data.credentials.set(connected.id, credentials)
          return connected
        }),
      renewCredentials: (id, renew) =>
        // One semaphore per account: renewers of one account run one after the other, as across processes on PostgreSQL.
        renewals(id).withPermits(1)(Effect.suspend(() => {
          const current = data.credentials.get(id)
          if (current === undefined) return Effect.succeed(Option.none())
          return Effect.map(renew(current), (renewed) => {
            if (Option.isSome(renewed)) data.credentials.set(id, renewed.value)
            return Option.some(Option.getOrElse(renewed, () => current))
          })
        }))
    })),
    Layer.succeed(ConnectionStates, ConnectionStates.of({
      save: (pending) => Effect.sync(() => void data.connectionStates.set(pending.state, pending)),
      take: (state) =>
        Effect.sync(() => {
          const pending = data.connectionStates.get(state)
          data.connectionStates.delete(state)
          return Option.fromNullable(pending)
        })
    })),
    Layer.succeed(WebhookEndpoints, WebhookEndpoints.of({
      create: (endpoint, secret) =>
        Effect.sync(() => void webhooks.set(endpoint.id, { endpoint, secrets: { current: secret, previous: Option.none() } })),
      list: (projectId) =>
        Effect.sync(() => [...webhooks.values()].map(({ endpoint }) => endpoint).filter((endpoint) => endpoint.projectId === projectId)),
      setEnabled: (projectId, id, enabled) =>
        Effect.suspend(() => {
          const stored = ownedWebhook(projectId, id)
          if (stored === undefined) return Effect.fail(new WebhookEndpointNotFound({ endpointId: id }))
          stored.endpoint = new WebhookEndpoint({
            ...stored.endpoint,
            enabled,
            consecutiveFailures: enabled ? 0 : stored.endpoint.consecutiveFailures
          })
          return Effect.void
        }),
      setKinds: (projectId, id, kinds) =>
        Effect.suspend(() => {
          const stored = ownedWebhook(projectId, id)
          if (stored === undefined) return Effect.fail(new WebhookEndpointNotFound({ endpointId: id }))
          stored.endpoint = new WebhookEndpoint({ ...stored.endpoint, kinds })
          return Effect.void
        }),
      signingTarget: (projectId, id) =>
        Effect.suspend(() => {
          const stored = ownedWebhook(projectId, id)
          return stored === undefined
            ? Effect.fail(new WebhookEndpointNotFound({ endpointId: id }))
            : Effect.succeed({ url: stored.endpoint.url, secrets: stored.secrets })
        }),
      rotateSecret: (projectId, id, secret, previousUntil) =>
        Effect.suspend(() => {
          const stored = ownedWebhook(projectId, id)
          if (stored === undefined) return Effect.fail(new WebhookEndpointNotFound({ endpointId: id }))
          stored.secrets = { current: secret, previous: Option.some({ secret: stored.secrets.current, until: previousUntil }) }
          return Effect.void
        }),
      remove: (projectId, id) =>
        ownedWebhook(projectId, id) === undefined
          ? Effect.fail(new WebhookEndpointNotFound({ endpointId: id }))
          : Effect.sync(() => void webhooks.delete(id))
    }))
  )
}

/** Keys `hk_<kind>_` then a counter over 40 digits, their hash the counter in hex, webhook secrets `whsec_<n>`: reproducible. */
export const sequentialSecrets = (): Layer.Layer<SecretMint> => {
  let next = 0
  return Layer.succeed(SecretMint, SecretMint.of({
    apiKey: (kind) =>
      Effect.sync(() => {
        const n = ++next
        const key = `hk_${kind}_${String(n).padStart(40, "0")}`
        return { key: Redacted.make(key), hash: ApiKeyHash.make(n.toString(16).padStart(64, "0")), prefix: key.slice(0, kind.length + 8) }
      }),
    webhookSecret: Effect.sync(() => Redacted.make(`whsec_${++next}`)),
    // A fixed verifier and its S256 challenge (BASE64URL(SHA-256(verifier))).
    oauthState: Effect.sync(() => ({
      state: `state_${++next}`,
      codeVerifier: Redacted.make("dBjftJeZ4CVP-mJ92K9hAJRb3Bw3Wq3L9YZ1dZ1vY5c"),
      codeChallenge: "4Ydo1AdrSbg-bpoGaAMZgwjalH58BJ9R4IgT_xezNmc"
    }))
  }))
}

// The host after the scheme and any credentials, read without the URL global: the core compiles
// against ECMAScript alone, and URL is a Node/DOM global.
const hostOf = (url: string): string => /^[a-z][a-z\d+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(url)?.[1]?.toLowerCase() ?? ""

/** Refuses a webhook URL whose host is in `refusedHosts`, as the real check refuses a private address. */
export const webhookDestinationsRefusing = (refusedHosts: ReadonlyArray<string>): Layer.Layer<WebhookDestinations> =>
  Layer.succeed(WebhookDestinations, WebhookDestinations.of({
    check: (url) =>
      refusedHosts.includes(hostOf(url))
        ? Effect.fail(new WebhookDestinationRefused({ url, reason: `${hostOf(url)} is not a public address` }))
        : Effect.void
  }))
