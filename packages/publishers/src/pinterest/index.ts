export { pinterestScopes } from "./PinterestOAuth.js"
export { pinterestDirectRoute, pinterestHosts, pinterestRoute } from "./PinterestRoute.js"
