export { tiktokScopes } from "./TiktokOAuth.js"
export { tiktokDirectRoute, tiktokHosts, tiktokRoute, tiktokSettings } from "./TiktokRoute.js"
export type { TiktokSettings, VideoTransfer } from "./TiktokPublisher.js"
