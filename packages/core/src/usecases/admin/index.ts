export * from "./Accounts.js"
export * from "./ApiKeys.js"
export * from "./Projects.js"
export * from "./Webhooks.js"
