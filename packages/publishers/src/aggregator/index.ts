export { classify } from "./AyrshareApi.js"
export { postBody, userTagsOf } from "./AyrsharePublisher.js"
export {
  type AggregatorRoute,
  ayrshareApiUrl,
  ayrshareApiUrlVariable,
  ayrshareRoute,
  instagramAggregatorLoginRoute,
  instagramAggregatorRoute
} from "./AyrshareRoute.js"
