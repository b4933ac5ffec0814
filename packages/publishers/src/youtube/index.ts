export { quotaDay } from "./Quota.js"
export { chunkUnit } from "./ResumableUpload.js"
export { youtubeScopes } from "./YoutubeOAuth.js"
export { youtubeDirectRoute, youtubeHosts, youtubeRoute, type YoutubeSettings, youtubeSettings } from "./YoutubeRoute.js"
