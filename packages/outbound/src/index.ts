export * from "./OutboundGuard.js"
export * from "./RefusedRanges.js"
