import { Schema } from "effect"
import { quote } from "./Echo.js"
import { ProjectId } from "./Ids.js"

export const ApprovalMode = Schema.Literal("copilot", "autopilot")
export type ApprovalMode = typeof ApprovalMode.Type

export const PlanStatus = Schema.Literal("active", "inactive")
export type PlanStatus = typeof PlanStatus.Type

/** The guardrail rules a project enables. An empty settings object checks nothing. */
export const GuardrailSettings = Schema.Struct({
  banned_words: Schema.Array(Schema.String),
  banned_topics: Schema.Array(Schema.String),
  tone: Schema.NullOr(Schema.String),
  links: Schema.NullOr(Schema.Struct({
    allowed_domains: Schema.Array(Schema.String),
    denied_domains: Schema.Array(Schema.String),
    block_shorteners: Schema.Boolean,
    max_links: Schema.NullOr(Schema.Int.pipe(Schema.nonNegative()))
  })),
  daily_post_cap: Schema.NullOr(Schema.Int.pipe(Schema.positive())),
  /**
   * Terms a project adds per topic (whole words, any case, with the banned words' evasion
   * handling): a text naming one is about the topic. Extends a topic the built-in classifier
   * knows, or teaches it a new one. Optional, so stored settings without it need no migration.
   */
  topic_terms: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }))
})
export type GuardrailSettings = typeof GuardrailSettings.Type

export const noGuardrails: GuardrailSettings = {
  banned_words: [],
  banned_topics: [],
  tone: null,
  links: null,
  daily_post_cap: null
}

/** An IANA time zone name the runtime knows (e.g. Europe/Paris, UTC). */
export const TimeZone = Schema.String.pipe(
  Schema.filter((zone) => {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone })
      return true
    } catch {
      return `unknown time zone ${quote(zone)}`
    }
  }, { identifier: "TimeZone" })
)

export class Project extends Schema.Class<Project>("Project")({
  id: ProjectId,
  name: Schema.String,
  timezone: TimeZone,
  approval: ApprovalMode,
  signature: Schema.String,
  guardrails: GuardrailSettings,
  plan: PlanStatus
}) {}
