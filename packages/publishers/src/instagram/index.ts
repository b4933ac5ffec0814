export { instagramDirectRoute, instagramHosts, instagramLoginRoute, instagramLoginScopes } from "./InstagramLoginRoute.js"
