export { xOAuth, xScopes } from "./XOAuth.js"
export { xDirectRoute, xMetrics, xRoute } from "./XRoute.js"
