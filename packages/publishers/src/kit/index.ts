export * from "./Authorized.js"
export * from "./Config.js"
export * from "./Failures.js"
export * from "./PlatformHttp.js"
