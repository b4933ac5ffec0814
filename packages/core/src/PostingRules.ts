import { Option, Schema } from "effect"
import {
  AccountCapabilities,
  AccountLimits,
  accountRef,
  AccountReport,
  AccountStatus,
  ConnectionRoute,
  type ReportedOption,
  type SocialAccount
} from "./Account.js"
import { AccountId } from "./Ids.js"
import { Placement, Platform } from "./Platform.js"
import { defaultBoard, type KnownBoard } from "./ports/PinterestBoards.js"
import { type OptionSpec, PostingOptionKind } from "./platforms/PlatformModule.js"
import { accountCapabilities, limitsFor, optionKeysFor, platformRegistry } from "./platforms/Registry.js"

/** A row of GET /social-accounts. */
export const AccountView = Schema.Struct({
  id: AccountId,
  platform: Platform,
  username: Schema.String,
  status: AccountStatus,
  ref: Schema.String,
  route: ConnectionRoute,
  limits: AccountLimits,
  can: AccountCapabilities,
  /** What the platform itself reports of the account (TikTok's creator info); absent where it reports nothing. */
  reported: Schema.optional(AccountReport)
})
export type AccountView = typeof AccountView.Type

export const toAccountView = (account: SocialAccount, all: ReadonlyArray<SocialAccount>, signature: string): AccountView => ({
  id: account.id,
  platform: account.platform,
  username: account.username,
  status: account.status,
  ref: accountRef(account, all),
  route: account.route,
  limits: limitsFor(account, signature),
  can: accountCapabilities(account),
  ...(account.report === undefined ? {} : { reported: account.report })
})

/** One platform_configurations key an account accepts, with its ceilings and placement gates. */
export const PostingOption = Schema.Struct({
  key: Schema.String,
  kind: PostingOptionKind,
  /** The accepted values of a select; null for free input. */
  values: Schema.NullOr(Schema.Array(Schema.String)),
  default: Schema.NullOr(Schema.Union(Schema.String, Schema.Boolean)),
  max_length: Schema.NullOr(Schema.Int),
  max_items: Schema.NullOr(Schema.Int),
  only_placement: Schema.NullOr(Schema.Array(Placement)),
  except_placement: Schema.NullOr(Schema.Array(Placement)),
  note: Schema.String
})
export type PostingOption = typeof PostingOption.Type

/** A board as GET /posting-rules lists it: its id is what board_ids takes; `default` marks where a pin with no board lands. */
export const PinterestBoard = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  eligible: Schema.Boolean,
  reason: Schema.optional(Schema.String),
  default: Schema.Boolean
})
export type PinterestBoard = typeof PinterestBoard.Type

/**
 * GET /posting-rules, one account. `boards` is carried by pinterest accounts only (null when the
 * board lookup is unavailable) and is absent from every other platform's entry, where it means nothing.
 */
export const AccountPostingRules = Schema.Struct({
  account_id: AccountId,
  ref: Schema.String,
  platform: Platform,
  limits: AccountLimits,
  can: AccountCapabilities,
  options: Schema.Array(PostingOption),
  boards: Schema.optional(Schema.NullOr(Schema.Array(PinterestBoard)))
})
export type AccountPostingRules = typeof AccountPostingRules.Type

const option = (
  key: string,
  kind: PostingOptionKind,
  note: string,
  fields: Partial<Omit<PostingOption, "key" | "kind" | "note">> = {}
): PostingOption => ({
  key,
  kind,
  values: null,
  default: null,
  max_length: null,
  max_items: null,
  only_placement: null,
  except_placement: null,
  note,
  ...fields
})

type Brief = { readonly limits: AccountView["limits"]; readonly can: AccountView["can"] }

/** caption: the main caption's override, held to what is left once the signature is appended. */
const captionOption = ({ can, limits }: Brief): PostingOption =>
  option("caption", "textarea", "Replaces the main caption on this platform; the signature is still appended.", {
    max_length: limits.caption_chars_available,
    ...(can.placements.includes("stories") ? { except_placement: ["stories" as const] } : {})
  })

const placementOption = ({ can }: Brief): PostingOption =>
  option("placement", "select", "Where the post appears. Reels need a video; stories need media and print no caption.", {
    values: can.placements,
    default: "timeline"
  })

/**
 * An option of the platform's module as GET /posting-rules shows it, narrowed by what the platform
 * reported of the account (the values it accepts now, a toggle it fixes, and why).
 */
const advertised = (key: string, spec: OptionSpec, reported: ReportedOption | undefined): PostingOption =>
  option(key, spec.kind, reported === undefined ? spec.note : `${spec.note} ${reported.reason}`, {
    values: reported?.values ?? spec.values,
    default: reported?.fixed ?? (reported?.values?.length === 1 ? reported.values[0]! : spec.default),
    max_length: spec.text?.max ?? null,
    max_items: spec.items?.max ?? null,
    except_placement: spec.exceptPlacement
  })

/** Every key the account accepts (optionKeysFor: the list validation holds posts to), described. */
const accountOptions = (account: SocialAccount, brief: Brief): Array<PostingOption> =>
  optionKeysFor(account.platform, account.route).map((key) =>
    key === "caption"
      ? captionOption(brief)
      : key === "placement"
      ? placementOption(brief)
      : advertised(key, platformRegistry[account.platform].options[key]!, account.report?.options[key])
  )

const boardsView = (known: Option.Option<ReadonlyArray<KnownBoard>>): ReadonlyArray<PinterestBoard> | null =>
  Option.match(known, {
    onNone: () => null,
    onSome: (boards) => {
      const fallback = defaultBoard(boards)
      return boards.map((board) => ({
        id: board.id,
        name: board.name,
        eligible: board.eligible,
        ...(board.reason === null ? {} : { reason: board.reason }),
        default: board === fallback
      }))
    }
  })

/**
 * GET /posting-rules for one account: its limits/can brief and every key it accepts; a Pinterest
 * account's boards as last read (null when no lookup has succeeded).
 */
export const postingRulesFor = (
  account: SocialAccount,
  all: ReadonlyArray<SocialAccount>,
  signature: string,
  boards: Option.Option<ReadonlyArray<KnownBoard>>
): AccountPostingRules => {
  const brief: Brief = { limits: limitsFor(account, signature), can: accountCapabilities(account) }
  return {
    account_id: account.id,
    ref: accountRef(account, all),
    platform: account.platform,
    ...brief,
    options: accountOptions(account, brief),
    ...(account.platform === "pinterest" ? { boards: boardsView(boards) } : {})
  }
}
