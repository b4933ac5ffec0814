import {
  AccountStore,
  AccountTokens,
  completeConnection,
  createProject,
  Media,
  MediaId,
  MediaStorage,
  makeAccountTokens,
  type OAuthProvider,
  OAuthProviders,
  startConnection,
  VideoFrames
} from "@herald/core"
import { InMemoryData, makeInMemoryAdmin, makeInMemoryStores, sequentialIds, sequentialSecrets } from "@herald/core/memory"
import { OutboundGuard } from "@herald/outbound"
import { DateTime, Effect, Layer, Option, Redacted } from "effect"
import { CallDeadlines, type Deadlines, PlatformHttpLive } from "../../src/kit/PlatformHttp.js"
import { hungCallDeadlines, shortDeadlines } from "./Deadlines.js"
import { fakeDirectRoute, fakePlatform } from "./FakeRoute.js"
import { startOAuthFake } from "./OAuthFake.js"
import { publisherContract } from "./publisherContract.js"

// The kit's reference route against the generic OAuth fake: proves the contract suite itself
// (every case can pass, over the production HttpClient and the guard) before a platform uses it.
publisherContract(
  "the kit's reference route",
  Effect.gen(function*() {
    const fake = yield* startOAuthFake({ clientId: "client", clientSecret: "secret" })
    const data = new InMemoryData()
    const image = new Media({
      id: MediaId.make("00000000-0000-4000-8000-0000000000aa"),
      projectId: "00000000-0000-4000-8000-000000000001" as Media["projectId"],
      kind: "image",
      mime: "image/png",
      bytes: 4,
      filename: null,
      width: 1,
      height: 1,
      durationSeconds: null,
      codec: "png",
      altText: "a dot",
      peopleTags: [],
      thumbnailTimestampMs: null,
      storageKey: "media/dot.png",
      createdAt: DateTime.unsafeMake("2030-01-01T00:00:00Z")
    })
    const media = Layer.succeed(MediaStorage, MediaStorage.of({
      keep: () => Effect.void,
      remove: () => Effect.void,
      read: (key) => Effect.succeed(key === image.storageKey ? Option.some(new Uint8Array([137, 80, 78, 71])) : Option.none()),
      configured: true,
      uploadForm: () => Effect.succeed(Option.none()),
      takeUpload: () => Effect.succeed(Option.none())
    }))
    const storage = Layer.mergeAll(makeInMemoryStores(data), makeInMemoryAdmin(data), sequentialIds(), sequentialSecrets())
    const http = PlatformHttpLive.pipe(Layer.provide(OutboundGuard.layer({ allowLoopback: true })))
    const endpoints = {
      platform: fakePlatform,
      apiBaseUrl: fake.url,
      authBaseUrl: fake.url,
      clientId: Option.some("client"),
      clientSecret: Option.some(Redacted.make("secret"))
    }
    // Built in the suite's scope: the guard's connections live as long as the suite.
    const services = yield* Layer.build(Layer.mergeAll(
      storage,
      media,
      VideoFrames.unavailable,
      http
    ))
    const { built, hung } = yield* Effect.gen(function*() {
      // The tokens refresh through the provider the route builds with them.
      const provider: { current?: OAuthProvider } = {}
      const tokens = yield* makeAccountTokens(() => Effect.succeed(provider.current?.refresh))
      const within = (deadlines: Deadlines) =>
        fakeDirectRoute.build(endpoints).pipe(Effect.provideService(AccountTokens, tokens), Effect.provideService(CallDeadlines, deadlines))
      const route = yield* within(shortDeadlines)
      provider.current = route.oauth
      // A text post is one call: the hung publish makes no answered call.
      return { built: route, hung: yield* within(hungCallDeadlines) }
    }).pipe(Effect.provide(services))

    // Connected through the flow: the consent URL followed to the fake, its answer to the callback's use case.
    const account = yield* Effect.gen(function*() {
      const project = yield* createProject({ name: "Contract", timezone: "UTC", approval: "autopilot", signature: "", plan: "active" })
      const started = yield* startConnection(project.id, fakePlatform, { caller: "test", publicUrl: "https://herald.test" })
      const consented = yield* Effect.promise(() => fetch(started.authorizeUrl, { redirect: "manual" }))
      const answer = new URL(consented.headers.get("location")!)
      return yield* completeConnection(fakePlatform, {
        state: answer.searchParams.get("state")!,
        code: Option.some(answer.searchParams.get("code")!),
        denied: Option.none()
      })
    }).pipe(
      Effect.provideService(OAuthProviders, OAuthProviders.make({ oauth: [built.oauth!], logins: [], unconfigured: [] })),
      Effect.provide(services)
    )

    return {
      adapters: built.adapters,
      hungPublisher: hung.adapters.publisher,
      account,
      fake: {
        failNext: (reply) => fake.failNext(reply),
        hangNext: () => fake.hangNext(),
        expireToken: () => fake.expireToken(),
        revokeGrant: () => fake.revokeGrant(),
        revokeScope: (scope) => fake.revokeScope(scope),
        publishScope: fake.publishScope,
        posts: () => fake.posts,
        refreshes: () => fake.refreshes()
      },
      media: { image },
      options: [],
      reload: Effect.map(
        Effect.flatMap(AccountStore, (store) => store.list(account.projectId)),
        (accounts) => accounts.find((candidate) => candidate.id === account.id)!
      ).pipe(Effect.provide(services))
    }
  })
)
