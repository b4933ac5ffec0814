import { captionLength } from "./CaptionLength.js"
import { configurationSchema, everyRoute, mediaRules, type PlatformModule, text } from "./PlatformModule.js"

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
  caption: { ceiling: 3000, length: captionLength.linkedin, optional: true },
  media: mediaRules({
    // A MultiImage post holds up to 20 images (one video or one document alone).
    max: 20,
    required: false,
    // LinkedIn Videos API, 3 seconds to 30 minutes.
    videoSeconds: 1800
  }),
  placements: [],
  // Documents: the Documents API takes the same w_member_social / w_organization_social grant as
  // posting, so a direct connection that may post may post a PDF too (docs/networks/linkedin.md).
  routes: everyRoute(["documents"]),
  options,
  rules: [],
  metrics: ["views", "likes", "comments", "shares", "reach"],
  livePost: (_author, _placement, ids) => {
    const id = `urn:li:share:${ids.digits(19)}`
    return { id, url: `https://www.linkedin.com/feed/update/${id}/` }
  }
}
