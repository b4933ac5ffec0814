export * from "./StorageContract.js"
export * from "./StorageFixtures.js"
