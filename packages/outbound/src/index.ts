export * from "./OutboundGuard.js"
