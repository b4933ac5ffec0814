export * from "./FakeRoute.js"
export * from "./OAuthFake.js"
export * from "./publisherContract.js"
