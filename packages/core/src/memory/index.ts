export * from "./InMemoryPorts.js"
export * from "./InMemoryStores.js"
export * from "./InMemoryAccess.js"
export * from "./InMemoryAdmin.js"
