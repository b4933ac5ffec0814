import { textLength } from "../CaptionSignature.js"
import { configurationSchema, mediaRules, type PlatformModule, text } from "./PlatformModule.js"

const options = {
  document_title: text("Names a PDF document post; defaults to the file name.", {
    text: { max: 400, noun: "a document title" },
    needs: "documents",
    refuse: (_title, target) =>
      target.documents.length === 0 ? "document_title names a document post and this post carries no document" : null
  })
}

export const LinkedinConfiguration = configurationSchema(options)

export const linkedin: PlatformModule = {
  look: { name: "LinkedIn", color: "#0a66c2" },
  // The Posts API commentary limit (LinkedIn Marketing docs, "3000 characters").
  caption: { ceiling: 3000, length: textLength, optional: true },
  media: mediaRules({
    // A MultiImage post holds up to 20 images (one video or one document alone).
    max: 20,
    required: false,
    // LinkedIn Videos API, 3 seconds to 30 minutes.
    videoSeconds: 1800
  }),
  placements: [],
  // Documents: the Documents API belongs to LinkedIn's Community Management product, which a
  // direct "Share on LinkedIn" connection does not have; aggregators hold it.
  routes: { direct: [], aggregator: ["documents"], aggregator_login: ["documents"], simulator: ["documents"] },
  options,
  rules: [],
  metrics: ["views", "likes", "comments", "shares", "reach"],
  livePost: (_author, _placement, ids) => {
    const id = `urn:li:share:${ids.digits(19)}`
    return { id, url: `https://www.linkedin.com/feed/update/${id}/` }
  }
}
