import type { GuardrailViolation } from "../Errors.js"
import type { GuardrailSettings } from "../Project.js"
import { foldForLinks } from "./Normalize.js"
import type { OutboundText } from "./OutboundText.js"

export type LinkSettings = NonNullable<GuardrailSettings["links"]>

/** Hosts whose links hide where they lead. Subdomains count too. */
export const linkShorteners: ReadonlyArray<string> = [
  "bit.ly", "bitly.com", "t.co", "tinyurl.com", "goo.gl", "ow.ly", "is.gd", "v.gd", "buff.ly", "rebrand.ly",
  "cutt.ly", "shorturl.at", "t.ly", "tiny.cc", "rb.gy", "bl.ink", "short.io", "s.id", "soo.gd", "clck.ru",
  "lnkd.in", "fb.me", "youtu.be", "dlvr.it", "ift.tt", "trib.al", "shorte.st", "adf.ly", "bit.do", "mcaf.ee",
  "qr.ae", "x.gd", "tiny.one", "surl.li", "linktr.ee", "lnk.to", "amzn.to", "tr.im", "po.st", "su.pr"
]

/** One link found in a text: its host, and a key that is the same however the link was written. */
export interface FoundLink {
  readonly host: string
  readonly key: string
}

// Top-level domains accepted for a link written without a scheme, so that "e.g." or "node.js"
// in prose is not a link: every two-letter country code (minus file extensions that are not
// country codes) and the common generic ones. A link with http(s):// counts whatever its TLD.
const genericTlds = new Set([
  "com", "net", "org", "info", "biz", "edu", "gov", "mil", "int", "name", "pro", "app", "dev", "xyz", "online",
  "site", "shop", "store", "blog", "news", "tech", "club", "top", "vip", "live", "link", "page", "cloud", "art",
  "design", "media", "studio", "social", "world", "today", "space", "website", "email", "agency", "group",
  "network", "solutions", "zone", "life", "fun", "icu", "mobi", "asia", "tel", "travel", "jobs", "museum", "co",
  "io", "ai", "ly", "me", "tv", "gg", "to", "fm", "one", "click", "help", "support", "finance", "money", "bet",
  "casino", "games", "win", "porn", "sex", "xxx", "adult", "dating", "loan", "download", "stream", "video"
])
const notCountryCodes = new Set(["js", "ts", "rb", "db", "cs", "go"])
const isLinkTld = (tld: string): boolean =>
  genericTlds.has(tld) || (/^[a-z]{2}$/.test(tld) && !notCountryCodes.has(tld))

const withScheme = /\b(?:https?|ftp):\/\/([^\s/?#<>"'()[\]]+)([^\s<>"']*)/gu
const withoutScheme =
  /(?<![\p{L}\p{N}@._/-])((?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+(\p{L}{2,63}))(?![\p{L}\p{N}-])(?::\d{1,5})?([/?#][^\s<>"']*)?/gu
const trailingPunctuation = /[.,!?;:)\]}'"]+$/

/** The host of an authority: without credentials (never echoed), port or the sentence's punctuation. */
const hostOf = (authority: string): string =>
  authority.slice(authority.lastIndexOf("@") + 1).replace(trailingPunctuation, "").replace(/:\d*$/, "").replace(/\.$/, "")

const keyOf = (host: string, path: string): string =>
  host + path.replace(trailingPunctuation, "").replace(/\/$/, "")

/** Links written with a scheme, then bare domains ("example.com/x", "www.shop.fr") in the rest. */
export const extractLinks = (text: string): ReadonlyArray<FoundLink> => {
  const folded = foldForLinks(text)
  const links: Array<FoundLink> = []
  const rest = folded.replace(withScheme, (_url, authority: string, path: string) => {
    const host = hostOf(authority)
    if (host !== "") links.push({ host, key: keyOf(host, path) })
    return " "
  })
  for (const match of rest.matchAll(withoutScheme)) {
    const [, domain = "", tld = "", path = ""] = match
    const host = domain.replace(/\.$/, "")
    if (isLinkTld(tld) || host.startsWith("www.")) links.push({ host, key: keyOf(host, path) })
  }
  return links
}

/** A configured domain as a bare host: "https://www.Example.com/x" and "*.example.com" are example.com's. */
export const normalizeDomain = (domain: string): string =>
  foldForLinks(domain.trim())
    .replace(/^[a-z]+:\/\//, "")
    .replace(/[/?#].*$/, "")
    .replace(/:\d*$/, "")
    .replace(/^\*?\./, "")
    .replace(/\.$/, "")

const isWithin = (host: string, domain: string): boolean => host === domain || host.endsWith(`.${domain}`)

/** The link policy over every outbound text: each problem once per field and host, then the count. */
export const checkLinks = (texts: ReadonlyArray<OutboundText>, settings: LinkSettings): Array<GuardrailViolation> => {
  const allowed = settings.allowed_domains.map(normalizeDomain).filter((domain) => domain !== "")
  const denied = settings.denied_domains.map(normalizeDomain).filter((domain) => domain !== "")
  // Each detail once, with the field it names (none for the post-wide count).
  const details = new Map<string, string | undefined>()
  const distinctLinks = new Set<string>()
  for (const { field, text } of texts) {
    for (const { host, key } of extractLinks(text)) {
      distinctLinks.add(key)
      if (denied.some((domain) => isWithin(host, domain))) {
        details.set(`${field} links to denied domain "${host}"`, field)
      } else if (allowed.length > 0 && !allowed.some((domain) => isWithin(host, domain))) {
        details.set(`${field} links to "${host}", which is not an allowed domain`, field)
      }
      if (settings.block_shorteners && linkShorteners.some((shortener) => isWithin(host, shortener))) {
        details.set(`${field} links to the link shortener "${host}"`, field)
      }
    }
  }
  // Counted once per distinct link: a platform caption that repeats the main caption's link
  // publishes it once per network, not twice.
  if (settings.max_links !== null && distinctLinks.size > settings.max_links) {
    details.set(`the post has ${distinctLinks.size} distinct links; at most ${settings.max_links} are allowed`, undefined)
  }
  return [...details].map(([detail, field]) => (field === undefined ? { rule: "links", detail } : { rule: "links", detail, field }))
}
