import { PostId } from "@herald/core"
import { Schema } from "effect"

/**
 * The input field naming one post (get_post's id, post_id elsewhere), so every tool taking one
 * shows the client the same description and example. The description goes on the field: on the
 * type it would become the refusal message.
 */
export const PostIdInput = Schema.propertySignature(
  PostId.annotations({ examples: [PostId.make("0b9f3c52-4a3e-4c1e-9d7a-2f1e5d8c6b4a")] })
).annotations({ description: "The post's id (from create_post or list_posts)." })
