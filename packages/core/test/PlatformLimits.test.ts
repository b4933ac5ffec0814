/**
 * Generated from the platform registry: for every platform and connection route, each limit
 * GET /posting-rules and GET /social-accounts advertise is accepted by validation at the limit and
 * refused one past it, the refusal naming the field and the account. Nothing here names a platform,
 * an option or a number: they all come from the registry, through what the API serves.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, Option, ParseResult, Schema } from "effect"
import type { ConnectionRoute, SocialAccount } from "../src/Account.js"
import type { Media, MediaKind } from "../src/Media.js"
import { Placement, type Platform, platforms } from "../src/Platform.js"
import { deliveryNote, splitMedia } from "../src/platforms/DeliveryNote.js"
import { optionField } from "../src/platforms/PlatformModule.js"
import { PlatformConfigurations, platformRegistry } from "../src/platforms/Registry.js"
import { type PostingOption, postingRulesFor } from "../src/PostingRules.js"
import { validateDraft } from "../src/PostValidation.js"
import { account, media } from "./RuleFixtures.js"

const routes: ReadonlyArray<ConnectionRoute> = ["direct", "aggregator", "aggregator_login", "simulator"]
const signature = "— Acme"

interface Refusal {
  readonly field: string
  readonly account: string | null
}

/**
 * What a create goes through: the body's schema, then validation. A schema refusal names the
 * field by its path and no account.
 */
const judge = (
  target: SocialAccount,
  fields: { readonly configuration?: Record<string, unknown>; readonly media?: ReadonlyArray<Media>; readonly caption?: string }
): ReadonlyArray<Refusal> => {
  const decoded = Schema.decodeUnknownEither(PlatformConfigurations)(
    fields.configuration === undefined ? {} : { [target.platform]: fields.configuration },
    { errors: "all" }
  )
  if (Either.isLeft(decoded)) {
    return ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((issue) => ({
      field: ["platform_configurations", ...issue.path].join("."),
      account: null
    }))
  }
  return validateDraft({
    caption: fields.caption ?? "Hello",
    signature,
    accounts: [target],
    media: fields.media ?? [],
    platformConfigurations: decoded.right
  }).map(({ account, field }) => ({ field, account }))
}

const many = (count: number, kind: MediaKind) => Array.from({ length: count }, () => media(kind))

/** The posts a value may need around it: none, a photo, a video, a document. */
const surroundings: ReadonlyArray<ReadonlyArray<Media>> = [[], [media("image")], [media("video")], [media("document")]]

/** The first surrounding post that takes the configuration whole, if any. */
const acceptingMedia = (target: SocialAccount, configuration: Record<string, unknown>) =>
  surroundings.find((around) => judge(target, { configuration, media: around }).length === 0)

const optionSpec = (platform: Platform, key: string) => platformRegistry[platform].options[key]

/** A text of exactly `length` characters in the shape the option takes. */
const textOf = (platform: Platform, option: PostingOption, length: number): string => {
  if (optionSpec(platform, option.key)?.text?.format === "url") {
    const origin = "https://example.com/"
    return origin + "p".repeat(length - origin.length)
  }
  return option.key === "caption" ? paragraphs("a", length) : "a".repeat(length)
}

/**
 * A caption of exactly `length` characters in lines of 80, as captions are written: a platform
 * may hold its first line to a shorter ceiling (YouTube's title, 100 characters).
 */
const paragraphs = (letter: string, length: number) =>
  Array.from({ length }, (_, index) => (index + 1) % 80 === 0 && index < length - 1 ? "\n" : letter).join("")

/** Where a list's entries are refused: the key, or the key under which its entries sit. */
const listField = (platform: Platform, option: PostingOption) => {
  const itemsAt = optionSpec(platform, option.key)?.itemsAt ?? null
  return optionField(platform, itemsAt === null ? option.key : `${option.key}.${itemsAt}`)
}

/** The option's value with `items` entries (lists) of `length` characters, the last one `lastLength`. */
const valueOf = (platform: Platform, option: PostingOption, size: { items: number; length: number; lastLength?: number }) => {
  if (option.kind !== "list") return textOf(platform, option, size.lastLength ?? size.length)
  const entries = Array.from(
    { length: size.items },
    (_, index) => textOf(platform, option, index === size.items - 1 ? size.lastLength ?? size.length : size.length)
  )
  const itemsAt = optionSpec(platform, option.key)?.itemsAt ?? null
  return itemsAt === null ? entries : { [itemsAt]: entries }
}

const atLimit = (option: PostingOption) => ({ items: option.max_items ?? 1, length: option.max_length ?? 1 })

/** One step past one limit of one option, with the field whose refusal must follow. */
interface Overstep {
  readonly name: string
  readonly option: PostingOption
  readonly value: unknown
  readonly field: string
}

const oversteps = (platform: Platform, option: PostingOption): ReadonlyArray<Overstep> => {
  const limit = atLimit(option)
  const steps: Array<Overstep> = []
  if (option.max_length !== null) {
    steps.push({
      name: `${option.key}: max_length ${option.max_length}`,
      option,
      value: valueOf(platform, option, { ...limit, lastLength: option.max_length + 1 }),
      field: option.kind === "list" ? `${listField(platform, option)}[${limit.items - 1}]` : optionField(platform, option.key)
    })
  }
  if (option.max_items !== null) {
    steps.push({
      name: `${option.key}: max_items ${option.max_items}`,
      option,
      value: valueOf(platform, option, { ...limit, items: option.max_items + 1 }),
      field: listField(platform, option)
    })
  }
  return steps
}

const plainValues = (platform: Platform, option: PostingOption): ReadonlyArray<unknown> =>
  option.kind === "toggle"
    ? [true, false]
    : option.kind === "select"
    ? option.values ?? []
    : [valueOf(platform, option, { items: 1, length: 1 })]

describe.each(platforms)("%s, as its registry module says", (platform) => {
  describe.each(routes)("through %s", (route) => {
    const target = account(platform, route)
    const ref = `${platform}:acme`
    const rules = postingRulesFor(target, [target], signature, platform === "pinterest" ? Option.some([]) : Option.none())
    const limited = rules.options.filter((option) => option.max_length !== null || option.max_items !== null)
    const allAtLimit = Object.fromEntries(limited.map((option) => [option.key, valueOf(platform, option, atLimit(option))]))
    const around = acceptingMedia(target, allAtLimit)

    it("accepts every advertised limit at once, each option at its limit", () => {
      expect(
        around,
        `no post takes ${JSON.stringify(Object.keys(allAtLimit))} at their limits: ${
          JSON.stringify(judge(target, { configuration: allAtLimit, media: [] }))
        }`
      ).toBeDefined()
    })

    it.each(limited.flatMap((option) => oversteps(platform, option)).map((step) => [step.name, step] as const))(
      "refuses %s one past, naming the field and the account",
      (_name, step) => {
        const refusals = judge(target, { configuration: { ...allAtLimit, [step.option.key]: step.value }, media: around ?? [] })
        expect(refusals).toContainEqual({ field: step.field, account: ref })
        // Only this option is refused: the step past its limit is the whole reason.
        expect(refusals.filter((refusal) => !refusal.field.startsWith(optionField(platform, step.option.key)))).toEqual([])
      }
    )

    // Limited options were all taken together above; these have no limit to step past.
    it.each(rules.options.filter((option) => !limited.includes(option)).map((option) => [option.key, option] as const))(
      "accepts %s with each value it advertises",
      (_key, option) => {
        for (const value of plainValues(platform, option)) {
          expect(acceptingMedia(target, { [option.key]: value }), `${option.key}: ${JSON.stringify(value)}`).toBeDefined()
        }
      }
    )

    it.each(rules.options.filter((option) => option.kind === "select").map((option) => [option.key, option] as const))(
      "refuses a %s value it does not advertise, naming the field",
      (_key, option) => {
        const refused = [`not_${option.values![0]}`, ...(option.key === "placement" ? Placement.literals.filter((value) => !option.values!.includes(value)) : [])]
        for (const value of refused) {
          const refusals = judge(target, { configuration: { [option.key]: value }, media: [media("video")] })
          expect(refusals.map((refusal) => refusal.field), value).toContain(optionField(platform, option.key))
        }
      }
    )

    it(`takes a caption of caption_chars_available (${rules.limits.caption_chars_available}) and refuses one more`, () => {
      const caption = (length: number) => judge(target, { caption: paragraphs("c", length), media: acceptingMedia(target, {}) ?? [] })
      expect(caption(rules.limits.caption_chars_available)).toEqual([])
      expect(caption(rules.limits.caption_chars_available + 1)).toEqual([{ field: "caption", account: ref }])
    })

    it(`takes max_media (${rules.limits.max_media}) items and refuses or leaves behind one more`, () => {
      const kind = (["image", "video"] as const).find((kind) => judge(target, { media: many(rules.limits.max_media, kind) }).length === 0)
      expect(kind, `no kind of media is taken ${rules.limits.max_media} at a time`).toBeDefined()
      const over = many(rules.limits.max_media + 1, kind!)
      if (splitMedia(platform, over, "timeline").left.length > 0) {
        // The platform takes the post whole and leaves extras behind: the receipt says so instead.
        expect(judge(target, { media: over })).toEqual([])
        expect(deliveryNote(target, over, undefined)?.kind).toBe(null)
      } else {
        expect(judge(target, { media: over })).toContainEqual({ field: "media_ids", account: ref })
      }
    })

    it(`takes a video of video_seconds (${rules.limits.video_seconds}) and refuses one second more`, () => {
      const video = (seconds: number) => judge(target, { media: [media("video", { durationSeconds: seconds })] })
      expect(video(rules.limits.video_seconds!)).toEqual([])
      expect(video(rules.limits.video_seconds! + 1)).toEqual([{ field: "media_ids[0]", account: ref }])
    })
  })
})
