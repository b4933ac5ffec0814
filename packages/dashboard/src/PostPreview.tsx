import { appendSignature, captionLength } from "./core.js"
import { MediaThumbs } from "./MediaThumbs.js"
import type { Platform, Post } from "./types.js"

const platformNames: Record<Platform, string> = {
  x: "X",
  instagram: "Instagram",
  facebook: "Facebook",
  threads: "Threads",
  pinterest: "Pinterest",
  tiktok: "TikTok",
  youtube: "YouTube",
  linkedin: "LinkedIn",
  bluesky: "Bluesky"
}
export const platformName = (platform: Platform) => platformNames[platform] ?? platform

/** What the account prints: its own caption override, else the post's caption; the signature after it. */
export const printedCaption = (post: Pick<Post, "caption" | "signature" | "platform_configurations">, platform: Platform): string | null => {
  const configuration = post.platform_configurations[platform]
  const override = typeof configuration?.["caption"] === "string" && configuration["caption"].trim() !== "" ? configuration["caption"] : null
  const text = override ?? (post.caption !== null && post.caption.trim() !== "" ? post.caption : null)
  return text === null ? null : appendSignature(text, post.signature)
}

const optionsOf = (post: Post, platform: Platform) =>
  Object.entries(post.platform_configurations[platform] ?? {}).filter(([key]) => key !== "caption")

/** One card per targeted account, as that network will show the post. */
export const PostPreview = ({ post }: { readonly post: Post }) => (
  <div class="previews">
    {post.targets.map((target) => {
      const text = printedCaption(post, target.platform)
      const options = optionsOf(post, target.platform)
      return (
        <article class={`preview net-${target.platform}`} key={target.account_id} aria-label={`${platformName(target.platform)} preview for ${target.username}`}>
          <header>
            <strong>{platformName(target.platform)}</strong> <span class="handle">@{target.username}</span>
          </header>
          {text === null ? <p class="muted">No caption on this network.</p> : <p class="caption">{text}</p>}
          {text !== null && <p class="count">{captionLength[target.platform](text)} characters as {platformName(target.platform)} counts</p>}
          <MediaThumbs ids={post.media_ids} />
          {options.length > 0 && (
            <dl class="options">
              {options.map(([key, value]) => (
                <div key={key}>
                  <dt>{key.replaceAll("_", " ")}</dt>
                  <dd>{typeof value === "string" ? value : JSON.stringify(value)}</dd>
                </div>
              ))}
            </dl>
          )}
        </article>
      )
    })}
  </div>
)
