export { facebookScopes } from "./FacebookOAuth.js"
export { facebookDirectRoute, facebookRoute } from "./FacebookRoute.js"
