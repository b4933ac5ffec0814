export { asOrganization, memberScopes, organizationScopes } from "./LinkedinOAuth.js"
export { linkedinDirectRoute, linkedinHosts, type LinkedinOptions, linkedinRoute } from "./LinkedinRoute.js"
export { linkedinVersion } from "./Rest.js"
