import { Schema } from "effect"

/** A count a platform reports; null where it reports none for the post (never zero in its place). */
const Count = Schema.NullOr(Schema.NonNegativeInt)

/**
 * The engagement of one published post as its platform reports it. Engagement in the contract's
 * sense is Herald's arithmetic over these, not a platform figure.
 */
export const PostMetrics = Schema.Struct({
  /** Times the post was shown (impressions; "views" on the networks that renamed them). */
  views: Count,
  /** Distinct accounts it was shown to. */
  reach: Count,
  likes: Count,
  comments: Count,
  /** Reposts, retweets, quotes and shares. */
  shares: Count,
  /** Saves and bookmarks. */
  saves: Count,
  /** Clicks on its link. */
  clicks: Count,
  /** Plays of its video. */
  videoViews: Count
})
export type PostMetrics = typeof PostMetrics.Type
