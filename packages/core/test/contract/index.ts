export * from "./StorageContract.js"
export * from "./StorageFixtures.js"
export * from "./MetricsContract.js"
