import { Multipart } from "@effect/platform"
import { Chunk, Effect, Either, Option, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { boundaryOf, contentTypeFor, framedBody, framing } from "../src/MultipartFraming.js"

const boundary = "frame-test-boundary"
const text = (body: string) => Buffer.from(body, "latin1")
const headers = (name: string, filename?: string) =>
  `Content-Disposition: form-data; name="${name}"${filename === undefined ? "" : `; filename="${filename}"`}\r\n`

const form = [
  "a preamble line\r\n",
  `--${boundary}\r\n${headers("alt_text")}\r\nred\r\nsquare\r\n`,
  `--${boundary}\r\n${headers("file", "a.csv")}Content-Type: text/csv\r\n\r\ncaption\r\n--${boundary.slice(0, 5)} not a boundary\r\n`,
  `--${boundary}--\r\nan epilogue, ignored:\r\n--${boundary}\r\n${headers("file", "b.csv")}\r\nmore\r\n--${boundary}--\r\n`
].join("")
const formUpToClose = form.slice(0, form.indexOf(`--${boundary}--`) + boundary.length + 4)

/** Each malformed body with the refusal it gets. */
const malformed: ReadonlyArray<readonly [string, string, string]> = [
  ["no boundary line", "just some bytes\r\n", `the body has no boundary line --${boundary}`],
  ["the boundary only as a prefix", `--${boundary.slice(0, 8)}\r\n${headers("a")}\r\nx\r\n--${boundary.slice(0, 8)}--`, `the body has no boundary line --${boundary}`],
  ["cut in a part's body", `--${boundary}\r\n${headers("a")}\r\nx`, `the body ends before its closing boundary line --${boundary}--`],
  ["cut after a boundary line", `--${boundary}\r\n${headers("a")}\r\nx\r\n--${boundary}\r\n`, `the body ends before its closing boundary line --${boundary}--`],
  ["cut in a part's headers", `--${boundary}\r\nContent-Dispo`, `the body ends before its closing boundary line --${boundary}--`],
  ["cut in the delimiter", `--${boundary}\r\n${headers("a")}\r\nx\r\n--${boundary}-`, `the body ends before its closing boundary line --${boundary}--`],
  ["headers ended by the close", `--${boundary}\r\n${headers("a")}\r\n--${boundary}--`, "part 1: its headers do not end with an empty line (CRLF CRLF) before the next boundary line"],
  ["headers without an empty line", `--${boundary}\r\n${headers("a")}x\r\n--${boundary}--`, "part 1: its headers do not end with an empty line (CRLF CRLF) before the next boundary line"],
  ["a boundary line twice", `--${boundary}\r\n--${boundary}\r\n${headers("a")}\r\nx\r\n--${boundary}--`, "part 1: its headers do not end with an empty line (CRLF CRLF) before the next boundary line"],
  ["LF line ends", `--${boundary}\n${headers("a").replace("\r\n", "\n")}\nx\n--${boundary}--\n`, "part 1: its boundary line does not end with CRLF right after the boundary"],
  ["text after the boundary", `--${boundary}\r\n${headers("a")}\r\nx\r\n--${boundary}x\r\n${headers("b")}\r\ny\r\n--${boundary}--`, "part 2: its boundary line does not end with CRLF right after the boundary"]
]

/** Feeds `chunks` through a framing check: what the parser gets, chunk by chunk, or the refusal. */
const feed = (chunks: ReadonlyArray<Buffer>) => {
  const check = framing(boundary)
  const sent: Array<Uint8Array> = []
  for (const chunk of chunks) {
    const step = check.write(chunk)
    if (Either.isLeft(step)) return Either.left(step.left.error)
    sent.push(step.right)
  }
  return Option.match(check.end(), { onNone: () => Either.right(sent), onSome: (error) => Either.left(error.error) })
}

/** Every way to cut `body` in two. */
const splits = (body: Buffer) => Array.from({ length: body.length + 1 }, (_, at) => [body.subarray(0, at), body.subarray(at)])

const parse = (chunks: ReadonlyArray<Uint8Array>) =>
  Stream.fromIterable(chunks).pipe(
    Stream.pipeThroughChannel(Multipart.makeChannel({ "content-type": contentTypeFor(boundary) })),
    Stream.mapEffect((part) =>
      part._tag === "Field"
        ? Effect.succeed(`${part.key}=${part.value}`)
        : Effect.map(part.contentEffect, (bytes) => `${part.key}:${part.name}=${Buffer.from(bytes).toString("latin1")}`)
    ),
    Stream.runCollect,
    Effect.map(Chunk.toReadonlyArray),
    Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => "the parser never finished" }),
    Effect.runPromise
  )

describe("multipart framing", () => {
  it("hands on a well-framed body up to its close, however it is cut into chunks", () => {
    for (const chunks of splits(text(form))) {
      const sent = feed(chunks)
      expect(Either.map(sent, (bytes) => Buffer.concat(bytes).toString("latin1")), `cut at ${chunks[0]!.length}`)
        .toEqual(Either.right(formUpToClose))
    }
  })

  it("refuses each malformed body with the same reason however it is cut, handing on nothing after the flaw", () => {
    for (const [name, body, reason] of malformed) {
      for (const chunks of splits(text(body))) expect(feed(chunks), `${name}, cut at ${chunks[0]!.length}`).toEqual(Either.left(reason))
      expect(framedBody(boundary, text(body)), name).toEqual(Either.left(expect.objectContaining({ code: "malformed_body", error: reason })))
    }
  })

  it("gives the parser each delimiter with the bytes after it, so it reads the same parts at every cut", async () => {
    const expected = ["alt_text=red\r\nsquare", `file:a.csv=caption\r\n--${boundary.slice(0, 5)} not a boundary`]
    for (const chunks of splits(text(form))) {
      const sent = Either.getOrThrow(feed(chunks)).filter((bytes) => bytes.length > 0)
      expect(await parse(sent), `cut at ${chunks[0]!.length}`).toEqual(expected)
    }
  })

  it("reads the boundary of a Content-Type: 1 to 70 characters of RFC 2046's set, named once", () => {
    const longest = "'()+_,-./:=? ".padEnd(69, "a") + "z"
    const read = (contentType: string) => Either.mapLeft(boundaryOf(contentType), (error) => error.error)
    expect(read("multipart/form-data; boundary=abc")).toEqual(Either.right("abc"))
    expect(read(`multipart/form-data ; charset=utf-8;BOUNDARY="${longest}";`)).toEqual(Either.right(longest))
    expect(read(`multipart/form-data; boundary="a\\"b"`)).toEqual(Either.left(expect.stringContaining("RFC 2046")))
    expect(read(`multipart/form-data; boundary="${longest}a"`)).toEqual(Either.left(expect.stringContaining("1 to 70")))
    expect(read("multipart/form-data; boundary=\"ends in a space \"")).toEqual(Either.left(expect.stringContaining("not ending in a space")))
    expect(read("multipart/form-data; boundary=a; boundary=b")).toEqual(Either.left("the Content-Type names more than one boundary"))
    expect(read("multipart/form-data; charset=utf-8")).toEqual(Either.left("a multipart/form-data Content-Type needs a boundary parameter"))
    expect(read("multipart/form-data")).toEqual(Either.left("a multipart/form-data Content-Type needs a boundary parameter"))
    expect(read("multipart/form-data; boundary=\"unclosed")).toEqual(Either.left("the Content-Type's parameters do not parse"))
  })
})
