export * from "./Containers.js"
export * from "./GraphErrors.js"
export * from "./GraphVersions.js"
