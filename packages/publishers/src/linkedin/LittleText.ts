/**
 * Commentary in LinkedIn's "little" text format: the characters \ | { } @ [ ] ( ) < > # * _ ~
 * are markup, and LinkedIn cuts an unescaped post short at the first one it cannot parse. Herald
 * escapes them so the text prints as written, except in links (left whole so LinkedIn links them)
 * and in hashtags (a `#` opening a word stays a hashtag, as the author typed it).
 */

const reserved = /[\\|{}@[\]()<>#*_~]/g
// A link, or a hashtag: # at the start or after a space, followed by letters and digits.
const keptWhole = /https?:\/\/\S+|(?<=^|\s)#[\p{L}\p{N}]+/gu

const escape = (plain: string) => plain.replace(reserved, (character) => `\\${character}`)

export const littleText = (text: string): string => {
  let out = ""
  let last = 0
  for (const match of text.matchAll(keptWhole)) {
    out += escape(text.slice(last, match.index))
    out += match[0]
    last = match.index + match[0].length
  }
  return out + escape(text.slice(last))
}
