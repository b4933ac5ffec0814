/**
 * The link card of a post without media (app.bsky.embed.external): Bluesky shows what the client
 * sends, so the client reads the page's OpenGraph title and description itself, as the Bluesky app
 * does, with the page's sharing image as the thumb. The page is fetched through the same
 * HttpClient as everything else (the outbound guard refuses private addresses); a page that cannot
 * be read still gets a card, titled with its host.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Duration, Effect, Option, Stream } from "effect"

/** The head of a page is enough for its meta tags; nothing past this is parsed. */
const maxPageBytes = 256 * 1024
/** app.bsky.embed.external's thumb: an image blob of at most 1,000,000 bytes. */
const maxThumbBytes = 1_000_000
const pageDeadline = Duration.seconds(5)
/** app.bsky.embed.external leaves titles and descriptions unbounded; the app shows a few lines. */
const maxTitle = 300
const maxDescription = 1000

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: " " }
const decodeEntities = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X")) return String.fromCodePoint(parseInt(name.slice(2), 16))
    if (name.startsWith("#")) return String.fromCodePoint(parseInt(name.slice(1), 10))
    return entities[name.toLowerCase()] ?? whole
  })

const clean = (text: string, max: number) => {
  const single = decodeEntities(text).replace(/\s+/g, " ").trim()
  return single.length > max ? `${single.slice(0, max - 1)}…` : single
}

/** The content of `<meta property|name="key" content="…">`, attributes in either order. */
const meta = (html: string, key: string): string | null => {
  for (const tag of html.match(/<meta\b[^>]*>/gi) ?? []) {
    const attribute = (name: string) => new RegExp(`\\b${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, "i").exec(tag)
    const named = attribute("property") ?? attribute("name")
    const value = named?.[2] ?? named?.[3]
    if (value?.toLowerCase() !== key) continue
    const content = attribute("content")
    return content?.[2] ?? content?.[3] ?? null
  }
  return null
}

export interface PageSummary {
  readonly title: string | null
  readonly description: string | null
  /** The absolute URL of the page's sharing image. */
  readonly image: string | null
}

const nothing: PageSummary = { title: null, description: null, image: null }

/** The title, description and image a page at `pageUrl` gives for sharing; null for what it does not give. */
export const pageSummary = (html: string, pageUrl: string): PageSummary => {
  const title = meta(html, "og:title") ?? meta(html, "twitter:title") ?? /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1] ?? null
  const description = meta(html, "og:description") ?? meta(html, "twitter:description") ?? meta(html, "description")
  const image = meta(html, "og:image") ?? meta(html, "twitter:image")
  const imageUrl = image === null ? null : URL.parse(decodeEntities(image).trim(), pageUrl)
  return {
    title: title === null ? null : clean(title, maxTitle) || null,
    description: description === null ? null : clean(description, maxDescription) || null,
    image: imageUrl !== null && /^https?:$/.test(imageUrl.protocol) ? imageUrl.href : null
  }
}

const readHead = (uri: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(uri).pipe(HttpClientRequest.setHeader("accept", "text/html")))
    const type = response.headers["content-type"] ?? ""
    if (response.status !== 200 || !type.includes("html")) return null
    const head = yield* Stream.runFoldWhile(
      response.stream,
      { bytes: 0, parts: [] as Array<Uint8Array> },
      (state) => state.bytes < maxPageBytes,
      (state, chunk) => ({ bytes: state.bytes + chunk.length, parts: [...state.parts, chunk] })
    )
    return new TextDecoder().decode(Buffer.concat(head.parts).subarray(0, maxPageBytes))
  }).pipe(Effect.scoped, Effect.timeout(pageDeadline))

/** What the page at `uri` gives for sharing; nothing when it cannot be read. */
export const linkPreview = (uri: string): Effect.Effect<PageSummary, never, HttpClient.HttpClient> =>
  readHead(uri).pipe(
    Effect.map((html) => html === null ? nothing : pageSummary(html, uri)),
    Effect.orElseSucceed(() => nothing)
  )

/** The card's text: the page's own title and description, or its host when it gives no title. */
export const cardText = (uri: string, summary: PageSummary) => ({
  uri,
  title: summary.title ?? new URL(uri).host,
  description: summary.description ?? ""
})

/** The sharing image's bytes and type, when it is an image small enough for a card's thumb. */
export const thumbnail = (imageUrl: string): Effect.Effect<Option.Option<{ readonly bytes: Uint8Array; readonly mime: string }>, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(imageUrl).pipe(HttpClientRequest.setHeader("accept", "image/*")))
    const mime = (response.headers["content-type"] ?? "").split(";")[0]!.trim()
    if (response.status !== 200 || !mime.startsWith("image/")) return Option.none()
    const bytes = new Uint8Array(yield* response.arrayBuffer)
    return bytes.length > 0 && bytes.length <= maxThumbBytes ? Option.some({ bytes, mime }) : Option.none()
  }).pipe(Effect.scoped, Effect.timeout(pageDeadline), Effect.orElseSucceed(() => Option.none()))
