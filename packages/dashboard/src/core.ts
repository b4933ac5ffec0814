/**
 * What the dashboard takes from @herald/core: the caption's signature footer and how each network
 * counts a caption. These modules import nothing from effect at run time, so the bundle stays
 * small while the page counts exactly as the server validates.
 */
export { appendSignature } from "../../core/src/CaptionSignature.js"
export { captionLength } from "../../core/src/platforms/CaptionLength.js"
