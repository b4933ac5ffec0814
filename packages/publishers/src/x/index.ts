export { xOAuth, xScopes } from "./XOAuth.js"
export { xEndpoints, xMetrics, xRoute } from "./XRoute.js"
