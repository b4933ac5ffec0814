/** `@herald/publishers/testing/bluesky`: the real local PDS and the fault proxy, for other packages' end-to-end tests. */
export * from "./FaultProxy.js"
export * from "./LocalPds.js"
