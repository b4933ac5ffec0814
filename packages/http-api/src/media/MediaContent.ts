import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { Media } from "@herald/core"
import type { RangeNotSatisfiable } from "./MediaApi.js"

/**
 * GET /media/content/{id}'s reply: the bytes with their type, cached privately (the reply depends
 * on the caller's key or session), validated by an ETag, and one byte range when asked (a video
 * element asks for ranges to read its metadata and seek).
 *
 * A media id names one file for good (nothing rewrites a stored file), so the id is its ETag.
 */
export const mediaContentReply = (request: HttpServerRequest.HttpServerRequest, media: Media, bytes: Uint8Array) => {
  const etag = `"${media.id}"`
  const headers = {
    etag,
    "cache-control": "private, max-age=86400",
    "accept-ranges": "bytes",
    "x-content-type-options": "nosniff",
    // Opened on its own, the file runs nothing and embeds nothing.
    "content-security-policy": "default-src 'none'; img-src 'self'; media-src 'self'; sandbox",
    "content-disposition": "inline"
  }
  if (matches(request.headers["if-none-match"], etag)) return HttpServerResponse.empty({ status: 304, headers })
  const range = request.headers["range"]
  // If-Range with another validator asks for the whole file.
  const ifRange = request.headers["if-range"]
  const wanted = range === undefined || (ifRange !== undefined && ifRange !== etag) ? null : byteRange(range, bytes.length)
  if (wanted === "unsatisfiable") {
    return HttpServerResponse.unsafeJson({
      error: `the range ${range} starts past the end of the file (${bytes.length} bytes)`,
      code: "range_not_satisfiable"
    } satisfies typeof RangeNotSatisfiable.Encoded, { status: 416, headers: { ...headers, "content-range": `bytes */${bytes.length}` } })
  }
  if (wanted === null) return HttpServerResponse.uint8Array(bytes, { contentType: media.mime, headers })
  return HttpServerResponse.uint8Array(bytes.subarray(wanted.start, wanted.end + 1), {
    status: 206,
    contentType: media.mime,
    headers: { ...headers, "content-range": `bytes ${wanted.start}-${wanted.end}/${bytes.length}` }
  })
}

const matches = (header: string | undefined, etag: string) =>
  header !== undefined && (header.trim() === "*" || header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag))

/**
 * One `bytes=` range (first-last, first-, or -suffix) within a file of `size` bytes; null for a
 * header this does not serve (another unit, several ranges: the whole file is sent, as RFC 9110
 * allows), "unsatisfiable" for a range wholly outside the file.
 */
export const byteRange = (header: string, size: number): { readonly start: number; readonly end: number } | null | "unsatisfiable" => {
  const found = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (found === null) return null
  const [, first, last] = found as unknown as [string, string, string]
  if (first === "" && last === "") return null
  if (first === "") {
    const suffix = Number(last)
    if (suffix === 0 || size === 0) return "unsatisfiable"
    return { start: Math.max(size - suffix, 0), end: size - 1 }
  }
  const start = Number(first)
  if (start >= size) return "unsatisfiable"
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1)
  return end < start ? null : { start, end }
}
