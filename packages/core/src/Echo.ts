/**
 * Refused input as messages repeat it back: short enough to read, never the whole of a long
 * value (a 10,000-character caption is named by its length, not sent back to its author).
 */

/** Characters of a value a message repeats before it cuts it off. */
export const echoLimit = 64

/** The start of a long text, marked as cut. */
export const excerpt = (text: string, limit = echoLimit): string => text.length <= limit ? text : `${text.slice(0, limit)}…`

/**
 * The refusal message of an object schema given something that is not an object: "Expected <what>,
 * actual 5" instead of Effect's default, which spells the schema's whole type out. A refusal
 * inside the object keeps its own message (override false).
 */
export const expectedObject = (what: string) => (issue: { readonly actual: unknown }) => ({
  // JSON.stringify(undefined) is undefined, which the template writes as "undefined".
  message: `Expected ${what}, actual ${JSON.stringify(issue.actual)}`,
  override: false
})

/** A text quoted as JSON (so control characters show escaped); a long one cut, with its length. */
export const quote = (text: string): string =>
  text.length <= echoLimit ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, echoLimit))}… (${text.length} characters)`

/**
 * A field as errors name it: `caption`, `social_accounts[1]`, `platform_configurations.x.thread[2]`,
 * `rows[3].caption`; the empty path is the body itself. A long key is cut.
 */
export const fieldPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0
    ? "body"
    : path.map((key, index) =>
      typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${excerpt(String(key))}`
    ).join("")
