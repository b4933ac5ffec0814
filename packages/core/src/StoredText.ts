import { Effect } from "effect"
import { fieldPath } from "./Echo.js"
import { ValidationFailed, type Violation } from "./Errors.js"

/**
 * Text Herald stores, checked at every entry (REST and admin bodies, query and path values, bulk
 * rows, the SDK, the approval form). PostgreSQL text holds neither a NUL nor half of a UTF-16
 * surrogate pair, so such a string is refused with a 400 naming its field, never stored altered:
 * a normalised copy would be a text its author did not send, answered as if it were.
 */

/** How deeply objects and arrays may nest inside one another in a request (the walk goes no deeper). */
export const maxJsonDepth = 64

// A NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one
// (without the u flag a regular expression reads UTF-16 code units, which is what is judged).
// eslint-disable-next-line no-control-regex
const refusedUnit = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Why a text cannot be stored (its first refused character), or null when it can. */
export const refusedCharacter = (text: string): string | null => {
  const found = refusedUnit.exec(text)
  if (found === null) return null
  const unit = found[0].charCodeAt(0)
  return unit === 0
    ? "contains a NUL character (U+0000)"
    : `contains an unpaired surrogate (U+${unit.toString(16).toUpperCase()})`
}

/** How much of a text from outside Herald (a platform's error message, say) is kept. */
export const foreignTextLimit = 2000

const refusedUnits = new RegExp(refusedUnit.source, "g")

/**
 * A text Herald did not write and cannot refuse (a platform's reply), made storable: each NUL or
 * unpaired surrogate becomes U+FFFD, and a text past foreignTextLimit is cut there (an HTML error
 * page is not an error message) with an ellipsis, never through a surrogate pair.
 */
export const foreignText = (text: string): string => {
  const clean = text.replace(refusedUnits, "\ufffd")
  if (clean.length <= foreignTextLimit) return clean
  const end = /[\ud800-\udbff]/.test(clean[foreignTextLimit - 2]) ? foreignTextLimit - 2 : foreignTextLimit - 1
  return `${clean.slice(0, end)}\u2026`
}

/** What the walk found: a value nested too deep (the top field it is in), or every string and key it refuses. */
export type StoredTextCheck =
  | { readonly _tag: "TooDeep"; readonly field: string }
  | { readonly _tag: "Checked"; readonly violations: ReadonlyArray<Violation> }

interface Frame {
  readonly value: unknown
  readonly key: PropertyKey | null
  readonly parent: Frame | null
  /** Objects and arrays around the value. */
  readonly depth: number
}

const keysTo = (frame: Frame): Array<PropertyKey> => {
  const keys: Array<PropertyKey> = []
  for (let at: Frame | null = frame; at !== null && at.key !== null; at = at.parent) keys.push(at.key)
  return keys.reverse()
}

/**
 * Every string value and object key of a JSON-like value, in document order, judged by
 * refusedCharacter; fields are named from `root` on (`rows[3].caption`). Iterative, so no input
 * reaches the stack, and it stops at the first object or array nested deeper than maxJsonDepth.
 */
export const checkStoredText = (value: unknown, root: ReadonlyArray<PropertyKey> = []): StoredTextCheck => {
  const violations: Array<Violation> = []
  const refuse = (frame: Frame, message: string) =>
    violations.push({ field: fieldPath([...root, ...keysTo(frame)]), account: null, message })
  const stack: Array<Frame> = [{ value, key: null, parent: null, depth: 0 }]
  while (stack.length > 0) {
    const frame = stack.pop()!
    const current = frame.value
    if (typeof current === "string") {
      const refused = refusedCharacter(current)
      if (refused !== null) refuse(frame, refused)
      continue
    }
    if (typeof current !== "object" || current === null) continue
    const depth = frame.depth + 1
    if (depth > maxJsonDepth) return { _tag: "TooDeep", field: fieldPath([...root, ...keysTo(frame).slice(0, 1)]) }
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push({ value: current[index], key: index, parent: frame, depth })
      }
      continue
    }
    const keys = Object.keys(current)
    for (const key of keys) {
      const refused = refusedCharacter(key)
      if (refused !== null) refuse(frame, `has a key that ${refused}`)
    }
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index]!
      stack.push({ value: (current as Record<string, unknown>)[key], key, parent: frame, depth })
    }
  }
  return { _tag: "Checked", violations }
}

/** The reason given for a value nested deeper than maxJsonDepth. */
export const tooDeepMessage = `is nested deeper than ${maxJsonDepth} levels`

/** checkStoredText as the domain refuses (bulk rows, the SDK): every violation, the depth as one of them. */
export const refuseStoredText = (value: unknown, root: ReadonlyArray<PropertyKey> = []): Effect.Effect<void, ValidationFailed> => {
  const check = checkStoredText(value, root)
  const violations = check._tag === "TooDeep" ? [{ field: check.field, account: null, message: tooDeepMessage }] : check.violations
  return violations.length === 0 ? Effect.void : Effect.fail(new ValidationFailed({ violations }))
}
