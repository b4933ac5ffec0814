import { describe, expect, it } from "@effect/vitest"
import { Option, Schema } from "effect"
import { type AccountReport, SocialAccount } from "../src/Account.js"
import { AccountPostingRules, AccountView, postingRulesFor, toAccountView } from "../src/PostingRules.js"
import { type PostDraft, validateDraft } from "../src/PostValidation.js"
import { account, media } from "./RuleFixtures.js"

/** What TikTok's creator_info says of an unaudited app's creator, as the publisher keeps it. */
const unaudited: AccountReport = {
  checked_at: "2026-11-24T09:00:00.000Z",
  video_seconds: 60,
  public_posts: false,
  public_posts_reason: "this Herald's TikTok app has not passed TikTok's audit",
  options: {
    privacy_status: { values: ["SELF_ONLY"], reason: "Only SELF_ONLY: the app is unaudited." },
    is_brand_content: { fixed: false, reason: "branded content cannot be private." },
    disable_comment: { fixed: true, reason: "The creator has turned comments off in TikTok." }
  }
}

const reported = (report: AccountReport) => new SocialAccount({ ...account("tiktok"), report })

const draft = (target: SocialAccount, fields: Partial<PostDraft> = {}): PostDraft => ({
  caption: "Launch day",
  signature: "",
  accounts: [target],
  media: [media("video", { durationSeconds: 30 })],
  platformConfigurations: {},
  ...fields
})

const refusals = (post: PostDraft) => validateDraft(post).map(({ account, field, message }) => ({ account, field, message }))

describe("an account's report (what the platform says of it) at create", () => {
  it("refuses a privacy level the account is not offered, naming the account and the field and saying why", () => {
    const target = reported(unaudited)
    expect(refusals(draft(target, { platformConfigurations: { tiktok: { privacy_status: "PUBLIC_TO_EVERYONE" } } }))).toEqual([{
      account: "tiktok:acme",
      field: "platform_configurations.tiktok.privacy_status",
      message: "tiktok:acme accepts privacy_status SELF_ONLY only: Only SELF_ONLY: the app is unaudited."
    }])
    expect(refusals(draft(target, { platformConfigurations: { tiktok: { privacy_status: "SELF_ONLY" } } }))).toEqual([])
  })

  it("takes a post that names no audience (it goes out SELF_ONLY)", () => {
    expect(refusals(draft(reported(unaudited)))).toEqual([])
    expect(refusals(draft(account("tiktok")))).toEqual([])
  })

  it("refuses a toggle the platform fixes, and takes the fixed value", () => {
    const target = reported(unaudited)
    expect(refusals(draft(target, { platformConfigurations: { tiktok: { disable_comment: false } } })).map((one) => one.field))
      .toEqual(["platform_configurations.tiktok.disable_comment"])
    expect(refusals(draft(target, { platformConfigurations: { tiktok: { disable_comment: true } } }))).toEqual([])
    expect(refusals(draft(target, { platformConfigurations: { tiktok: { is_brand_content: true } } })).map((one) => one.field))
      .toEqual(["platform_configurations.tiktok.is_brand_content"])
  })

  it("holds videos to the account's own limit", () => {
    const [refusal] = refusals(draft(reported(unaudited), { media: [media("video", { durationSeconds: 61 })] }))
    expect(refusal).toMatchObject({ account: "tiktok:acme", field: "media_ids[0]" })
    expect(refusal?.message).toContain("tiktok:acme takes videos of up to 60 seconds")
    expect(refusals(draft(reported(unaudited), { media: [media("video", { durationSeconds: 60 })] }))).toEqual([])
  })
})

describe("an account's report on GET /social-accounts and GET /posting-rules", () => {
  it("shows the account's video limit, that it posts privately only, and the report itself", () => {
    const target = reported(unaudited)
    const row = toAccountView(target, [target], "")
    expect(row.limits.video_seconds).toBe(60)
    expect(row.can.public_posts).toBe(false)
    expect(row.reported).toEqual(unaudited)
    expect(Schema.decodeUnknownSync(AccountView)(Schema.encodeSync(AccountView)(row))).toEqual(row)
  })

  it("lists the values the account accepts and why, and the fixed toggles as defaults", () => {
    const target = reported(unaudited)
    const rules = postingRulesFor(target, [target], "", Option.none())
    const option = (key: string) => rules.options.find((candidate) => candidate.key === key)
    expect(option("privacy_status")).toMatchObject({ values: ["SELF_ONLY"], default: "SELF_ONLY" })
    expect(option("privacy_status")?.note).toContain("the app is unaudited")
    expect(option("disable_comment")).toMatchObject({ default: true })
    expect(option("disable_duet")).toMatchObject({ default: false })
    expect(Schema.decodeUnknownSync(AccountPostingRules)(Schema.encodeSync(AccountPostingRules)(rules))).toEqual(rules)
  })

  it("leaves an account without a report as its platform's module describes it", () => {
    const plain = account("tiktok")
    const row = toAccountView(plain, [plain], "")
    expect(row.limits.video_seconds).toBe(600)
    expect(row.can.public_posts).toBe(true)
    expect("reported" in row).toBe(false)
    const privacy = postingRulesFor(plain, [plain], "", Option.none()).options.find((candidate) => candidate.key === "privacy_status")
    expect(privacy).toMatchObject({ values: ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"], default: "SELF_ONLY" })
  })
})
