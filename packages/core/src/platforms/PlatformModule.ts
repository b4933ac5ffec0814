import { Schema } from "effect"
import { expectedObject } from "../Echo.js"
import type { AccountCapabilities, AccountLimits, ConnectionRoute, SocialAccount } from "../Account.js"
import type { Violation } from "../Errors.js"
import type { Media } from "../Media.js"
import { Placement, type Platform } from "../Platform.js"
import type { PostDraft } from "../PostValidation.js"

/**
 * What Herald knows about one network: one module per platform (x.ts, instagram.ts, …) exports
 * one of these, and Registry.ts keys them by platform. Validation, GET /posting-rules,
 * GET /social-accounts, the approval page and the simulator read only from here.
 */
export interface PlatformModule {
  /** How the approval page draws the platform's card. */
  readonly look: { readonly name: string; readonly color: string }
  readonly caption: {
    /** The longest text the platform prints, counted with `length`. */
    readonly ceiling: number
    /** How the platform counts a text against its ceilings (the caption's and its options'). */
    readonly length: (text: string) => number
    /** Publishes media without words; otherwise a caption is required. */
    readonly optional: boolean
    /** What `length` counts, as refusals name it; characters unless the platform counts bytes (YouTube's description). */
    readonly unit?: "characters" | "bytes"
  }
  readonly media: MediaRules
  /** Surfaces beyond the feed (timeline is the feed, and the default). */
  readonly placements: ReadonlyArray<Placement>
  /** What each connection route can do here beyond the platform's own facts. */
  readonly routes: Readonly<Record<ConnectionRoute, ReadonlyArray<RouteCapability>>>
  /** The platform's own keys of platform_configurations (caption and placement are everyone's). */
  readonly options: OptionSpecs
  /** Rules over several options or the post as a whole; each option's own rules sit in its spec. */
  readonly rules: ReadonlyArray<Check>
  /** The metrics the platform reports on a post; the others are never reported (null, not zero). */
  readonly metrics: ReadonlyArray<Metric>
  /** A post's id and public URL as the platform forms them (the simulator mints them so). */
  readonly livePost: (author: string, placement: Placement, ids: IdMint) => { readonly id: string; readonly url: string }
}

export interface MediaRules {
  /** Media items per post. */
  readonly max: number
  /** Refuses a text-only post. */
  readonly required: boolean
  /** Publishes videos only: images alone are refused. */
  readonly videoOnly: boolean
  /** The longest video, in seconds. */
  readonly videoSeconds: number
  /** Takes images and a video in one post. */
  readonly mixes: boolean
  /** A carousel takes several videos; elsewhere a post carries at most one. */
  readonly carouselVideos: boolean
  /** Prints alt text natively. */
  readonly altText: boolean
  /** Shares a single feed video as a reel. */
  readonly singleVideoIsReel: boolean
  /**
   * What the platform leaves behind when it accepts the post whole but not every item (then
   * validation lets the extras through and the receipt says so); null when it takes all of them.
   */
  readonly leavesBehind: (media: { readonly images: ReadonlyArray<Media>; readonly videos: ReadonlyArray<Media> }) => MediaSplit | null
}

/** The media a platform takes and leaves behind when it accepts the post whole but not every item. */
export interface MediaSplit {
  readonly sent: ReadonlyArray<Media>
  readonly left: ReadonlyArray<Media>
  readonly reason: string | null
}

/**
 * Media rules with the common case filled in: images or one video, never mixed, no alt text, no
 * reels, nothing left behind.
 */
export const mediaRules = (rules: Pick<MediaRules, "max" | "required" | "videoSeconds"> & Partial<MediaRules>): MediaRules => ({
  videoOnly: false,
  mixes: false,
  carouselVideos: false,
  altText: false,
  singleVideoIsReel: false,
  leavesBehind: () => null,
  ...rules
})

/** The same capabilities through every connection route. */
export const everyRoute = (
  capabilities: ReadonlyArray<RouteCapability> = []
): Readonly<Record<ConnectionRoute, ReadonlyArray<RouteCapability>>> => ({
  direct: capabilities,
  facebook_login: capabilities,
  aggregator: capabilities,
  aggregator_login: capabilities,
  simulator: capabilities
})

/**
 * Capabilities that depend on the connection route (placements and mixed_media are the
 * platform's, public_posts the account's report): those `can` shows, and branded_content
 * (instagram's paid partnership labels, which only some logins carry; its options are listed
 * only where the route has it) and ai_label (instagram's AI-generated label, which the aggregator
 * route does not carry).
 */
export type RouteCapability =
  | Exclude<keyof AccountCapabilities, "placements" | "mixed_media" | "public_posts">
  | "branded_content"
  | "ai_label"

export type Metric = "views" | "likes" | "comments" | "shares" | "reach" | "saves"

/** Random ids in the shapes platforms use, given to livePost by whoever mints posts. */
export interface IdMint {
  /** Decimal digits, the first never 0. */
  readonly digits: (count: number) => string
  /** URL-safe base64 characters. */
  readonly code: (length: number) => string
  /** An AT Protocol record key (TID). */
  readonly tid: () => string
}

// ---------------------------------------------------------------------------------------------
// Validation over one target
// ---------------------------------------------------------------------------------------------

/** One target of a draft, with everything its checks need computed once. */
export interface Target {
  readonly draft: PostDraft
  readonly account: SocialAccount
  readonly platform: Platform
  readonly ref: string
  readonly can: AccountCapabilities
  readonly limits: AccountLimits
  /** The placement asked for, or timeline when that one is refused (so the rest still gets checked). */
  readonly placement: Placement
  /** Images and videos; a document is judged on its own rules. */
  readonly visual: ReadonlyArray<Media>
  readonly documents: ReadonlyArray<Media>
  /** What the account prints: the caption (or the platform's override) with the signature; null when nothing prints. */
  readonly text: string | null
}

export type Check = (target: Target) => ReadonlyArray<Violation>

export const refuse = (field: string, account: string | null, message: string): Violation => ({ field, account, message })

export const optionField = (platform: string, key: string): string => `platform_configurations.${platform}.${key}`

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

export const PostingOptionKind = Schema.Literal("text", "textarea", "list", "toggle", "select")
export type PostingOptionKind = typeof PostingOptionKind.Type

/**
 * A ceiling on a text: the option's value, or each entry of a list.
 * - min: the fewest characters, counted once trimmed (a blank entry is an empty one).
 * - noun: how refusals name the text ("a pin title takes at most 100 characters").
 * - format url: an http or https link of at most max characters.
 */
export interface TextLimit {
  readonly max: number
  readonly min?: number
  readonly noun: string
  readonly format?: "url"
}

/** How many entries a list takes, and how a refusal says so. */
export interface ItemLimit {
  readonly max: number
  readonly min?: number
  readonly refusal: (count: number, limit: { readonly min?: number; readonly max: number }) => string
}

/** One key of platform_configurations.<platform>: its type, how GET /posting-rules shows it, and its rules. */
export interface OptionSpec<S extends Schema.Schema.AnyNoContext = Schema.Schema.AnyNoContext> {
  readonly schema: S
  readonly kind: PostingOptionKind
  readonly note: string
  readonly default: string | boolean | null
  /** A select's accepted values. */
  readonly values: ReadonlyArray<string> | null
  /** The text itself (text, textarea) or each entry (list). */
  readonly text: TextLimit | null
  readonly items: ItemLimit | null
  /** A list whose entries sit under this key of an object (x's poll: { options: [...] }). */
  readonly itemsAt: string | null
  readonly exceptPlacement: ReadonlyArray<Placement> | null
  /** Shown only to routes with this capability. */
  readonly needs: RouteCapability | null
  /** A reason to refuse the value outright (its limits are then not checked): the first problem found. */
  readonly refuse: ((value: Schema.Schema.Type<S>, target: Target) => string | null) | null
  /** Further rules on the value, each naming its own field (under `field`). */
  readonly check: ((value: Schema.Schema.Type<S>, target: Target, field: string) => ReadonlyArray<Violation>) | null
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>

type Details<S extends Schema.Schema.AnyNoContext> = Partial<Omit<OptionSpec<S>, "schema" | "kind" | "note">>

const spec = <S extends Schema.Schema.AnyNoContext>(schema: S, kind: PostingOptionKind, note: string, details: Details<S>): OptionSpec<S> => ({
  schema,
  kind,
  note,
  default: null,
  values: null,
  text: null,
  items: null,
  itemsAt: null,
  exceptPlacement: null,
  needs: null,
  refuse: null,
  check: null,
  ...details
})

/** One line of text. */
export const text = (note: string, details: Details<typeof Schema.String> = {}) => spec(Schema.String, "text", note, details)

/** Free text over several lines. */
export const textarea = (note: string, details: Details<typeof Schema.String> = {}) => spec(Schema.String, "textarea", note, details)

/** On or off; off unless set. */
export const toggle = (note: string, details: Details<typeof Schema.Boolean> = {}) =>
  spec(Schema.Boolean, "toggle", note, { default: false, ...details })

/** One of the literals; no default unless given. */
export const select = <Literals extends [string, ...Array<string>]>(
  schema: Schema.Literal<Literals>,
  note: string,
  details: Details<Schema.Literal<Literals>> = {}
) => spec(schema, "select", note, { values: schema.literals, ...details })

/** Several entries: an array, or an object holding one under `itemsAt`. */
export const list = <S extends Schema.Schema.AnyNoContext>(schema: S, note: string, details: Details<S> = {}) =>
  spec(schema, "list", note, details)

const common = {
  caption: Schema.optional(Schema.String),
  placement: Schema.optional(Placement)
}

/**
 * Keys not listed pass the schema only so that validation, which knows the target accounts,
 * refuses them naming the path and the account (unknown_option, PostValidation's unknownOptions).
 */
const extra = Schema.Record({ key: Schema.String, value: Schema.Unknown })

type OptionFields<Options extends OptionSpecs> = { readonly [K in keyof Options]: Schema.optional<Options[K]["schema"]> }

/**
 * platform_configurations.<platform>: caption and placement, then the platform's options in order.
 * The schema fixes each key's shape and type; limits are checked by validation, so that each
 * violation names its field and account.
 */
export const configurationSchema = <Options extends OptionSpecs>(options: Options) =>
  Schema.Struct(
    {
      ...common,
      ...(Object.fromEntries(Object.entries(options).map(([key, option]) => [key, Schema.optional(option.schema)])) as OptionFields<Options>)
    },
    extra
  ).annotations({ message: expectedObject("an object of the platform's options") })
