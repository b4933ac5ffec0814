export { threadsScopes } from "./ThreadsOAuth.js"
export { threadsDirectRoute, threadsHosts, threadsRoute } from "./ThreadsRoute.js"
