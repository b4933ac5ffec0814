export * from "./MediaApi.js"
export * from "./MediaHttp.js"
