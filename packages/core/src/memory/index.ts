export * from "./InMemoryPorts.js"
export * from "./InMemoryStores.js"
