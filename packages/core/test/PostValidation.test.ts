import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck } from "effect"
import { ConnectionRoute, type SocialAccount } from "../src/Account.js"
import { platforms } from "../src/Platform.js"
import { capabilitiesFor, commonOptionKeys, optionKeysFor, type PlatformConfigurations, platformRegistry } from "../src/platforms/Registry.js"
import type { Media } from "../src/Media.js"
import { type PostDraft, printedText, unknownOptions, validateDraft } from "../src/PostValidation.js"
import { account, images, media } from "./RuleFixtures.js"

const draft = (fields: {
  readonly accounts: ReadonlyArray<SocialAccount>
  readonly caption?: string | null
  readonly signature?: string
  readonly media?: ReadonlyArray<Media>
  readonly configurations?: PlatformConfigurations
}): PostDraft => ({
  caption: fields.caption === undefined ? "Hello" : fields.caption,
  signature: fields.signature ?? "",
  accounts: fields.accounts,
  media: fields.media ?? [],
  platformConfigurations: fields.configurations ?? {}
})

/** field and account of every violation: what each row asserts, exactly. */
const refusals = (post: PostDraft) => validateDraft(post).map(({ account, field }) => ({ field, account }))

const x = () => account("x")
const image = () => [media("image")]
const video = (durationSeconds = 30) => [media("video", { durationSeconds })]

type Row = readonly [name: string, post: PostDraft, expected: ReadonlyArray<{ field: string; account: string | null }>]

const one = (field: string, ref: string | null) => [{ field, account: ref }]

describe("validateDraft", () => {
  const rows: ReadonlyArray<Row> = [
    // caption: required by every destination except x, instagram and linkedin
    ["facebook needs a caption", draft({ accounts: [account("facebook")], caption: null }), one("caption", "facebook:acme")],
    ["a blank caption is no caption", draft({ accounts: [account("bluesky")], caption: "  " }), one("caption", "bluesky:acme")],
    ["x publishes media without words", draft({ accounts: [x()], caption: null, media: image() }), []],
    ["instagram publishes media without words", draft({ accounts: [account("instagram")], caption: null, media: image() }), []],
    ["linkedin publishes media without words", draft({ accounts: [account("linkedin")], caption: null, media: image() }), []],
    [
      "one captioned destination makes the shared caption required, naming it",
      draft({ accounts: [x(), account("threads")], caption: null, media: image() }),
      one("caption", "threads:acme")
    ],
    [
      "a platform caption override satisfies its platform",
      draft({ accounts: [x(), account("facebook")], caption: null, media: image(), configurations: { facebook: { caption: "Hi" } } }),
      []
    ],
    [
      "a story-only post needs no caption",
      draft({
        accounts: [account("facebook"), account("instagram")],
        caption: null,
        media: image(),
        configurations: { facebook: { placement: "stories" }, instagram: { placement: "stories" } }
      }),
      []
    ],
    // caption length: the printed text, signature included
    [
      "x: 270 characters plus a 12-character signature is over 280",
      draft({ accounts: [x()], caption: "a".repeat(270), signature: "— Acme Inc" }),
      one("caption", "x:acme")
    ],
    ["x: 280 characters exactly fit", draft({ accounts: [x()], caption: "a".repeat(280) }), []],
    [
      "an over-long override names the override",
      draft({ accounts: [account("threads")], configurations: { threads: { caption: "a".repeat(501) } } }),
      one("platform_configurations.threads.caption", "threads:acme")
    ],
    ["bluesky counts emoji as one character", draft({ accounts: [account("bluesky")], caption: "🚀".repeat(300) }), []],
    // youtube: the caption is the description (5,000 bytes), its first line the title (100 characters)
    ["youtube: 5,000 bytes of description fit", draft({ accounts: [account("youtube")], media: video(), caption: `Title\n${"é".repeat(2497)}` }), []],
    [
      "youtube counts the description in UTF-8 bytes: 2,500 two-byte letters are over",
      draft({ accounts: [account("youtube")], media: video(), caption: `Title\n${"é".repeat(2498)}` }),
      one("caption", "youtube:acme")
    ],
    [
      "youtube: a first line of 101 characters is too long a title",
      draft({ accounts: [account("youtube")], media: video(), caption: `${"t".repeat(101)}\nthe rest` }),
      one("caption", "youtube:acme")
    ],
    ["youtube: a first line of 100 characters is a title", draft({ accounts: [account("youtube")], media: video(), caption: `${"🎬".repeat(100)}\nthe rest` }), []],
    [
      "youtube: the override's first line is the title, named as the override",
      draft({ accounts: [account("youtube")], media: video(), configurations: { youtube: { caption: "t".repeat(120) } } }),
      one("platform_configurations.youtube.caption", "youtube:acme")
    ],
    ["youtube refuses < and >", draft({ accounts: [account("youtube")], media: video(), caption: "Launch <today>" }), one("caption", "youtube:acme")],
    // media
    ["instagram refuses text only", draft({ accounts: [account("instagram")] }), one("media_ids", "instagram:acme")],
    ["tiktok refuses text only", draft({ accounts: [account("tiktok")] }), one("media_ids", "tiktok:acme")],
    ["pinterest refuses text only", draft({ accounts: [account("pinterest")] }), one("media_ids", "pinterest:acme")],
    ["youtube refuses text only", draft({ accounts: [account("youtube")] }), one("media_ids", "youtube:acme")],
    ["youtube needs a video", draft({ accounts: [account("youtube")], media: image() }), one("media_ids", "youtube:acme")],
    ["instagram takes 10 items", draft({ accounts: [account("instagram")], media: images(10) }), []],
    ["instagram refuses 11 items", draft({ accounts: [account("instagram")], media: images(11) }), one("media_ids", "instagram:acme")],
    ["bluesky refuses 5 images", draft({ accounts: [account("bluesky")], media: images(5) }), one("media_ids", "bluesky:acme")],
    ["x takes 4 of 6 images and leaves the rest (a receipt note)", draft({ accounts: [x()], media: images(6) }), []],
    ["x does not mix images and a video", draft({ accounts: [x()], media: [...image(), ...video()] }), one("media_ids", "x:acme")],
    ["bluesky takes one video", draft({ accounts: [account("bluesky")], media: [...video(), ...video()] }), one("media_ids", "bluesky:acme")],
    ["facebook posts the video and leaves the photos (a receipt note)", draft({ accounts: [account("facebook")], media: [...image(), ...video()] }), []],
    ["tiktok refuses a video over 600 s", draft({ accounts: [account("tiktok")], media: video(601) }), one("media_ids[0]", "tiktok:acme")],
    [
      "video length is judged per account",
      draft({ accounts: [account("youtube"), account("tiktok")], media: video(700) }),
      one("media_ids[0]", "tiktok:acme")
    ],
    // placement
    ["x takes no placement", draft({ accounts: [x()], configurations: { x: { placement: "reels" } } }), one("platform_configurations.x.placement", "x:acme")],
    ["threads has no stories", draft({ accounts: [account("threads")], configurations: { threads: { placement: "stories" } } }), one("platform_configurations.threads.placement", "threads:acme")],
    ["threads takes reels with a video", draft({ accounts: [account("threads")], media: video(), configurations: { threads: { placement: "reels" } } }), []],
    ["a reel needs a video", draft({ accounts: [account("instagram")], media: image(), configurations: { instagram: { placement: "reels" } } }), one("platform_configurations.instagram.placement", "instagram:acme")],
    ["a reel is one clip; extras are a receipt note", draft({ accounts: [account("instagram")], media: [...video(), ...images(2)], configurations: { instagram: { placement: "reels" } } }), []],
    ["a story needs media", draft({ accounts: [account("facebook")], configurations: { facebook: { placement: "stories" } } }), one("platform_configurations.facebook.placement", "facebook:acme")],
    ["a story carries one item", draft({ accounts: [account("instagram")], media: images(2), configurations: { instagram: { placement: "stories" } } }), one("media_ids", "instagram:acme")],
    // x options
    ["x: at most 4 follow-ups", draft({ accounts: [x()], configurations: { x: { thread: ["1", "2", "3", "4", "5"] } } }), one("platform_configurations.x.thread", "x:acme")],
    ["x: a follow-up fits 280", draft({ accounts: [x()], configurations: { x: { thread: ["ok", "b".repeat(281)] } } }), one("platform_configurations.x.thread[1]", "x:acme")],
    ["x: the signature rides the main tweet only", draft({ accounts: [x()], signature: "— Acme", configurations: { x: { thread: ["b".repeat(280)] } } }), []],
    ["x: a poll has at least 2 options", draft({ accounts: [x()], configurations: { x: { poll: { options: ["yes"] } } } }), one("platform_configurations.x.poll.options", "x:acme")],
    ["x: a poll option fits 25", draft({ accounts: [x()], configurations: { x: { poll: { options: ["c".repeat(26), "no"] } } } }), one("platform_configurations.x.poll.options[0]", "x:acme")],
    ["x: a poll runs at least 5 minutes", draft({ accounts: [x()], configurations: { x: { poll: { options: ["a", "b"], duration_minutes: 4 } } } }), one("platform_configurations.x.poll.duration_minutes", "x:acme")],
    ["x: a poll runs at most 7 days", draft({ accounts: [x()], configurations: { x: { poll: { options: ["a", "b"], duration_minutes: 10081 } } } }), one("platform_configurations.x.poll.duration_minutes", "x:acme")],
    ["x: no poll with media", draft({ accounts: [x()], media: image(), configurations: { x: { poll: { options: ["a", "b"], duration_minutes: 60 } } } }), one("platform_configurations.x.poll", "x:acme")],
    ["x: first comment fits 280", draft({ accounts: [x()], configurations: { x: { first_comment: "d".repeat(281) } } }), one("platform_configurations.x.first_comment", "x:acme")],
    // instagram options
    ["instagram: no first comment on a direct connection", draft({ accounts: [account("instagram", "direct")], media: image(), configurations: { instagram: { first_comment: "hi" } } }), one("platform_configurations.instagram.first_comment", "instagram:acme")],
    ["instagram: first comment through the aggregator", draft({ accounts: [account("instagram", "aggregator")], media: image(), configurations: { instagram: { first_comment: "hi" } } }), []],
    ["instagram: first comment on the simulator", draft({ accounts: [account("instagram", "simulator")], media: image(), configurations: { instagram: { first_comment: "hi" } } }), []],
    ["instagram: first comment fits 2200", draft({ accounts: [account("instagram", "aggregator")], media: image(), configurations: { instagram: { first_comment: "e".repeat(2201) } } }), one("platform_configurations.instagram.first_comment", "instagram:acme")],
    ["instagram: no first comment on a story", draft({ accounts: [account("instagram", "aggregator")], media: image(), configurations: { instagram: { first_comment: "hi", placement: "stories" } } }), one("platform_configurations.instagram.first_comment", "instagram:acme")],
    ["instagram: at most 2 sponsors", draft({ accounts: [account("instagram")], media: image(), configurations: { instagram: { branded_content_sponsors: ["a", "b", "c"] } } }), one("platform_configurations.instagram.branded_content_sponsors", "instagram:acme")],
    // threads options
    ["threads: a poll needs two options", draft({ accounts: [account("threads")], configurations: { threads: { poll_option_a: "yes" } } }), one("platform_configurations.threads.poll_option_b", "threads:acme")],
    ["threads: poll options skip no letter", draft({ accounts: [account("threads")], configurations: { threads: { poll_option_a: "a", poll_option_b: "b", poll_option_d: "d" } } }), one("platform_configurations.threads.poll_option_c", "threads:acme")],
    ["threads: a poll of four", draft({ accounts: [account("threads")], configurations: { threads: { poll_option_a: "a", poll_option_b: "b", poll_option_c: "c", poll_option_d: "d" } } }), []],
    ["threads: a poll option fits 25", draft({ accounts: [account("threads")], configurations: { threads: { poll_option_a: "a", poll_option_b: "f".repeat(26) } } }), one("platform_configurations.threads.poll_option_b", "threads:acme")],
    ["threads: no poll with media", draft({ accounts: [account("threads")], media: image(), configurations: { threads: { poll_option_a: "a", poll_option_b: "b" } } }), one("platform_configurations.threads.poll_option_a", "threads:acme")],
    ["threads: no GIF with media", draft({ accounts: [account("threads")], media: image(), configurations: { threads: { gif_id: "g1" } } }), one("platform_configurations.threads.gif_id", "threads:acme")],
    ["threads: no GIF with a poll", draft({ accounts: [account("threads")], configurations: { threads: { gif_id: "g1", poll_option_a: "a", poll_option_b: "b" } } }), one("platform_configurations.threads.gif_id", "threads:acme")],
    ["threads: topic tag without #", draft({ accounts: [account("threads")], configurations: { threads: { topic_tag: "#launch" } } }), one("platform_configurations.threads.topic_tag", "threads:acme")],
    ["threads: topic tag is one word", draft({ accounts: [account("threads")], configurations: { threads: { topic_tag: "big launch" } } }), one("platform_configurations.threads.topic_tag", "threads:acme")],
    ["threads: topic tag without periods", draft({ accounts: [account("threads")], configurations: { threads: { topic_tag: "v1.0" } } }), one("platform_configurations.threads.topic_tag", "threads:acme")],
    ["threads: topic tag fits 50", draft({ accounts: [account("threads")], configurations: { threads: { topic_tag: "t".repeat(51) } } }), one("platform_configurations.threads.topic_tag", "threads:acme")],
    ["threads: a fine topic tag", draft({ accounts: [account("threads")], configurations: { threads: { topic_tag: "launchday" } } }), []],
    ["threads: a link attachment", draft({ accounts: [account("threads")], configurations: { threads: { link_attachment: "https://example.com/launch" } } }), []],
    ["threads: a link attachment is a URL", draft({ accounts: [account("threads")], configurations: { threads: { link_attachment: "example dot com" } } }), one("platform_configurations.threads.link_attachment", "threads:acme")],
    ["threads: no link attachment with media", draft({ accounts: [account("threads")], media: image(), configurations: { threads: { link_attachment: "https://example.com" } } }), one("platform_configurations.threads.link_attachment", "threads:acme")],
    // pinterest options
    ["pinterest: title fits 100", draft({ accounts: [account("pinterest")], media: image(), configurations: { pinterest: { title: "t".repeat(101) } } }), one("platform_configurations.pinterest.title", "pinterest:acme")],
    ["pinterest: link is http or https", draft({ accounts: [account("pinterest")], media: image(), configurations: { pinterest: { link: "ftp://example.com/a" } } }), one("platform_configurations.pinterest.link", "pinterest:acme")],
    ["pinterest: link is a URL", draft({ accounts: [account("pinterest")], media: image(), configurations: { pinterest: { link: "example dot com" } } }), one("platform_configurations.pinterest.link", "pinterest:acme")],
    ["pinterest: a fine link", draft({ accounts: [account("pinterest")], media: image(), configurations: { pinterest: { link: "https://example.com/shop?item=1" } } }), []],
    ["pinterest: board ids are not empty", draft({ accounts: [account("pinterest")], media: image(), configurations: { pinterest: { board_ids: ["b1", " "] } } }), one("platform_configurations.pinterest.board_ids[1]", "pinterest:acme")],
    // linkedin documents
    ["linkedin: a document through the aggregator", draft({ accounts: [account("linkedin", "aggregator")], media: [media("document")] }), []],
    ["linkedin: a document through the direct route", draft({ accounts: [account("linkedin", "direct")], media: [media("document")] }), []],
    ["a document aimed at another platform names that account", draft({ accounts: [account("linkedin", "aggregator"), x()], media: [media("document")] }), one("media_ids[0]", "x:acme")],
    ["a document travels alone", draft({ accounts: [account("linkedin", "aggregator")], media: [media("document"), media("image")] }), one("media_ids", null)],
    ["one document per post", draft({ accounts: [account("linkedin", "aggregator")], media: [media("document"), media("document")] }), one("media_ids", null)],
    ["linkedin: document title fits 400", draft({ accounts: [account("linkedin", "aggregator")], media: [media("document")], configurations: { linkedin: { document_title: "t".repeat(401) } } }), one("platform_configurations.linkedin.document_title", "linkedin:acme")],
    // people tags
    ["instagram: a tagged photo through the aggregator login variant", draft({ accounts: [account("instagram", "aggregator_login")], media: [media("image", { peopleTags: ["ana"] })] }), []],
    ["instagram: tags need a route that supports them", draft({ accounts: [account("instagram", "aggregator")], media: [media("image", { peopleTags: ["ana"] })] }), one("media_ids[0]", "instagram:acme")],
    ["a tagged photo aimed at another platform names that account", draft({ accounts: [account("instagram", "aggregator_login"), x()], media: [media("image"), media("image", { peopleTags: ["ana"] })] }), one("media_ids[1]", "x:acme")],
    ["linkedin: document title needs a document", draft({ accounts: [account("linkedin", "aggregator")], configurations: { linkedin: { document_title: "Deck" } } }), one("platform_configurations.linkedin.document_title", "linkedin:acme")],
    // tiktok
    ["tiktok: branded content cannot be private", draft({ accounts: [account("tiktok")], media: video(), configurations: { tiktok: { is_brand_content: true, privacy_status: "SELF_ONLY" } } }), one("platform_configurations.tiktok.privacy_status", "tiktok:acme")],
    ["tiktok: photo posts carry no AI label", draft({ accounts: [account("tiktok", "aggregator")], media: image(), configurations: { tiktok: { is_ai_generated: true } } }), one("platform_configurations.tiktok.is_ai_generated", "tiktok:acme")],
    ["tiktok: photo posts have no duets", draft({ accounts: [account("tiktok", "aggregator")], media: image(), configurations: { tiktok: { disable_duet: true } } }), one("platform_configurations.tiktok.disable_duet", "tiktok:acme")],
    ["tiktok: own-brand content may be private", draft({ accounts: [account("tiktok")], media: video(), configurations: { tiktok: { is_organic_brand_content: true, privacy_status: "SELF_ONLY" } } }), []],
    // nothing prints nothing: x and linkedin take media without words, never neither
    ["x: no caption and no media", draft({ accounts: [x()], caption: null }), one("caption", "x:acme")],
    ["linkedin: a blank caption and no media", draft({ accounts: [account("linkedin")], caption: " " }), one("caption", "linkedin:acme")],
    ["x: media without words", draft({ accounts: [x()], caption: null, media: images(1) }), []],
    // configurations nobody reads
    ["a configuration for a platform no target uses", draft({ accounts: [x()], configurations: { instagram: { first_comment: "hi" } } }), one("platform_configurations.instagram", null)]
  ]

  it.each(rows)("%s", (_name, post, expected) => {
    expect(refusals(post)).toEqual(expected)
  })

  it("names the account by its id when its username is shared on the platform", () => {
    const first = account("facebook", "direct", "shop")
    const second = account("facebook", "direct", "shop")
    expect(refusals(draft({ accounts: [first, second], caption: null }))).toEqual([
      { field: "caption", account: first.id },
      { field: "caption", account: second.id }
    ])
  })

  it("names a target by its id when another project account shares its username", () => {
    const target = account("facebook", "direct", "shop")
    const twin = account("facebook", "direct", "shop")
    const post = { ...draft({ accounts: [target], caption: null }), projectAccounts: [target, twin] }
    expect(refusals(post)).toEqual([{ field: "caption", account: target.id }])
  })

  it("says the ceiling, the length and the signature's share", () => {
    const [violation] = validateDraft(draft({ accounts: [x()], caption: "a".repeat(270), signature: "— Acme Inc" }))
    expect(violation?.message).toContain("280")
    expect(violation?.message).toContain("282")
    expect(violation?.message).toContain("signature takes 12")
  })

  it("names the account and its route when refusing a first comment", () => {
    const [violation] = validateDraft(draft({ accounts: [account("instagram", "direct")], media: image(), configurations: { instagram: { first_comment: "hi" } } }))
    expect(violation?.message).toContain("instagram:acme")
    expect(violation?.message).toContain("aggregator")
  })

  it("reports every violation at once", () => {
    const post = draft({
      accounts: [account("instagram", "direct"), account("facebook"), x()],
      caption: null,
      configurations: {
        instagram: { first_comment: "hi" },
        x: { thread: ["1", "2", "3", "4", "5"], placement: "stories" },
        tiktok: { is_ai_generated: true }
      }
    })
    expect(refusals(post)).toEqual([
      { field: "platform_configurations.tiktok", account: null },
      { field: "media_ids", account: "instagram:acme" },
      { field: "platform_configurations.instagram.first_comment", account: "instagram:acme" },
      { field: "caption", account: "facebook:acme" },
      { field: "platform_configurations.x.placement", account: "x:acme" },
      { field: "caption", account: "x:acme" },
      { field: "platform_configurations.x.thread", account: "x:acme" }
    ])
  })
})

describe("unknownOptions", () => {
  it("names each key a target's platform does not have, per account, with the keys it accepts", () => {
    const post = draft({
      accounts: [account("facebook"), account("bluesky"), x()],
      configurations: { facebook: { cta_text: "Shop now", placement: "timeline" }, bluesky: { langs: ["en"] }, x: { thread: ["1"] } }
    })
    expect(unknownOptions(post)).toEqual([
      { field: "platform_configurations.facebook.cta_text", account: "facebook:acme", message: "facebook has no option \"cta_text\"; facebook:acme accepts caption, placement, link (GET /posting-rules)" },
      { field: "platform_configurations.bluesky.langs", account: "bluesky:acme", message: "bluesky has no option \"langs\"; bluesky:acme accepts caption (GET /posting-rules)" }
    ])
  })

  it("refuses every key GET /posting-rules does not list for the account, on every platform and route", () => {
    for (const platform of platforms) {
      for (const route of ConnectionRoute.literals) {
        const target = account(platform, route)
        const listed = optionKeysFor(platform, capabilitiesFor(platform, route))
        const keys = [...commonOptionKeys, ...Object.keys(platformRegistry[platform].options)].filter((key) => !listed.includes(key))
        for (const key of keys) {
          const spec = platformRegistry[platform].options[key]
          const value = spec === undefined ? "timeline" : FastCheck.sample(Arbitrary.make(spec.schema), 1)[0]
          const post = draft({ accounts: [target], caption: "Hi", media: images(1), configurations: { [platform]: { [key]: value } } })
          expect([...unknownOptions(post), ...validateDraft(post)].map((v) => v.field), `${platform} ${route} ${key}`)
            .toContain(`platform_configurations.${platform}.${key}`)
        }
      }
    }
  })

  it("leaves a key the platform has but this route cannot take to that option's own rule", () => {
    const post = draft({ accounts: [account("instagram", "direct")], media: images(1), configurations: { instagram: { first_comment: "hi" } } })
    expect(unknownOptions(post)).toEqual([])
    expect(refusals(post)).toEqual([{ field: "platform_configurations.instagram.first_comment", account: "instagram:acme" }])
  })
})

describe("printedText", () => {
  it("appends the signature to the caption, or to the platform's override", () => {
    const facebook = account("facebook")
    const bluesky = account("bluesky")
    const post = draft({ accounts: [facebook, bluesky], caption: "Hello", signature: "— Acme", configurations: { bluesky: { caption: "Hi sky" } } })
    expect(printedText(post, facebook)).toBe("Hello\n\n— Acme")
    expect(printedText(post, bluesky)).toBe("Hi sky\n\n— Acme")
  })

  it("prints nothing on a story, and no lone signature without words", () => {
    const instagram = account("instagram")
    expect(printedText(draft({ accounts: [instagram], signature: "— Acme", configurations: { instagram: { placement: "stories" } } }), instagram)).toBe(null)
    expect(printedText(draft({ accounts: [instagram], caption: null, signature: "— Acme" }), instagram)).toBe(null)
  })
})
