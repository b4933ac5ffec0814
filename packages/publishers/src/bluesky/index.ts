export { blueskyLogin } from "./BlueskyLogin.js"
export { blueskyDirectRoute, blueskyRoute } from "./BlueskyRoute.js"
