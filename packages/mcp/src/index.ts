export * from "./McpEndpoint.js"
export * from "./Tool.js"
export * from "./Tools.js"
