export { instagramDirectRoute, instagramHosts, instagramLoginRoute, instagramLoginScopes } from "./InstagramLoginRoute.js"
export { instagramFacebookLoginDirectRoute, instagramFacebookLoginRoute, instagramFacebookLoginScopes } from "./InstagramFacebookLoginRoute.js"
