/** The REST API's replies as the pages read them (docs/api.md and the OpenAPI document have them in full). */

export type PostStatus = "pending_approval" | "scheduled" | "processing" | "posted" | "partial" | "failed" | "rejected" | "draft"
export const postStatuses: ReadonlyArray<PostStatus> = ["pending_approval", "scheduled", "processing", "posted", "partial", "failed", "rejected", "draft"]

export type Platform = "x" | "instagram" | "facebook" | "threads" | "pinterest" | "tiktok" | "youtube" | "linkedin" | "bluesky"

export interface Target {
  readonly account_id: string
  readonly platform: Platform
  readonly username: string
  readonly delivery_id: string
  readonly delivery_status: string
}

export interface Post {
  readonly id: string
  readonly status: PostStatus
  readonly scheduledAt: string | null
  readonly rejectionReason?: string | null
  readonly caption: string | null
  readonly signature: string
  readonly targets: ReadonlyArray<Target>
  readonly media_ids: ReadonlyArray<string>
  readonly platform_configurations: Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>
  readonly created_by: "agent" | "human"
  readonly created_at: string
  readonly updated_at: string
}

export interface PostList {
  readonly data: ReadonlyArray<Post>
}

export interface ReceiptEntry {
  readonly id: string
  readonly platform: Platform
  readonly account_id: string
  readonly username: string
  readonly status: string
  readonly retries: number
  readonly url: string | null
  readonly error: { readonly code?: string; readonly message?: string } | string | null
  readonly error_category: string | null
  readonly note: string | null
  readonly taken_down_at: string | null
}

export interface Receipt {
  readonly post_id: string
  readonly post_status: PostStatus
  readonly data: ReadonlyArray<ReceiptEntry>
}

export interface GuardrailViolation {
  readonly rule: string
  readonly detail: string
  readonly field?: string
}

export interface GuardrailVerdict {
  readonly allowed: boolean
  readonly violations: ReadonlyArray<GuardrailViolation>
  readonly rules_checked: ReadonlyArray<string>
}

export interface PostingOption {
  readonly key: string
  readonly kind: string
  readonly values: ReadonlyArray<string> | null
  readonly default: string | boolean | null
  readonly max_length: number | null
  readonly note: string
}

export interface AccountRules {
  readonly account_id: string
  readonly ref: string
  readonly platform: Platform
  readonly limits: {
    readonly caption_chars: number
    readonly caption_chars_available: number
    readonly max_media: number
    readonly media_required: boolean
  }
  readonly options: ReadonlyArray<PostingOption>
}

export interface Project {
  readonly id: string
  readonly name: string
  readonly timezone: string
  readonly signature: string
}

/** A project as the admin API answers it (the operator's pages). */
export interface AdminProject {
  readonly id: string
  readonly name: string
  readonly timezone: string
  readonly approval: string
  readonly signature: string
  readonly guardrails: { readonly banned_words: ReadonlyArray<string>; readonly banned_topics: ReadonlyArray<string>; readonly daily_post_cap: number | null }
}

/** GET /api/v1/media/{id}. */
export interface MediaInfo {
  readonly id: string
  readonly kind: "image" | "video" | "document"
  readonly mime: string
  readonly bytes: number
  readonly width: number | null
  readonly height: number | null
  readonly duration_seconds: number | null
  readonly alt_text: string | null
  readonly filename: string | null
  readonly created_at: string
}

export type MetricName = "views" | "likes" | "comments" | "shares" | "reach" | "saves" | "engagement"

export type MetricsPoint = { readonly taken_at: string } & { readonly [K in MetricName]: number | null }

/** GET /api/v1/metrics/history. */
export interface MetricsHistory {
  readonly post_id: string
  readonly data: ReadonlyArray<{
    readonly delivery_id: string
    readonly platform: Platform
    readonly username: string
    readonly points: ReadonlyArray<MetricsPoint>
    readonly synced_at: string
  }>
}
