import { excerpt, fieldPath } from "./Echo.js"
import { describeViolation, type Violation } from "./Errors.js"

/** Characters of a value a schema message may repeat (longer ones are described, not echoed). */
const maxActual = 80
/** Characters of the `error` sentence of a refusal (violations keeps every one). */
const maxSentence = 1000

/**
 * A schema message that never repeats a long value: Effect writes `Expected <what>, actual <value>`
 * with the whole value in it, so a long one becomes its length (a string) or its start.
 */
const capMessage = (message: string): string => {
  const split = message.indexOf(", actual ")
  if (split < 0) return excerpt(message, maxSentence)
  const actual = message.slice(split + ", actual ".length)
  if (actual.length <= maxActual) return excerpt(message, maxSentence)
  const text = actual.startsWith("\"") ? stringLength(actual) : null
  const described = text === null ? excerpt(actual, maxActual) : `a string of ${text} characters`
  return excerpt(`${message.slice(0, split)}, actual ${described}`, maxSentence)
}

const stringLength = (quoted: string): number | null => {
  try {
    const text: unknown = JSON.parse(quoted)
    return typeof text === "string" ? text.length : null
  } catch {
    return null
  }
}

/** The error sentence of a refusal listing its violations, as many as fit. */
const sentence = (violations: ReadonlyArray<Violation>): string => {
  let text = "invalid request: "
  for (const [index, violation] of violations.entries()) {
    const part = `${index === 0 ? "" : "; "}${describeViolation(violation)}`
    if (text.length + part.length > maxSentence) return `${text}; and ${violations.length - index} more (see violations)`
    text += part
  }
  return text
}

/**
 * The body of a request refused for its fields (REST's 400 invalid_request, MCP's tool error of the
 * same code): a sentence and every violation, their messages capped.
 */
export const refusedFieldsBody = (violations: ReadonlyArray<Violation>) => {
  const capped = violations.map((violation) => ({ ...violation, message: capMessage(violation.message) }))
  return { error: sentence(capped), violations: capped }
}

const expected = /^Expected (.*?), actual (.*)$/s

const within = (field: string, parent: string) =>
  field === parent || field.startsWith(`${parent}.`) || field.startsWith(`${parent}[`)

/**
 * A schema's issues (ArrayFormatter's) as violations, one sentence per field. A union reports one
 * issue per member it tried ("Expected string, actual 5" and "Expected null, actual 5"): they are
 * read as one, "Expected string or null, actual 5". An optional field (a union with undefined)
 * also reports its undefined member, at the field and at every optional object around it; that
 * one says nothing when the field has another issue.
 */
export const issueViolations = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
): ReadonlyArray<Violation> => {
  const all = issues.map((issue) => ({ field: fieldPath(issue.path), message: issue.message }))
  const telling = all.filter((v) =>
    !(v.message.startsWith("Expected undefined,") && all.some((other) => other !== v && within(other.field, v.field)))
  )
  const byField = new Map<string, Array<string>>()
  for (const { field, message } of telling) byField.set(field, [...(byField.get(field) ?? []), message])
  return [...byField].flatMap(([field, messages]): ReadonlyArray<Violation> => {
    const parts = messages.map((message) => expected.exec(message))
    const actual = parts[0]?.[2]
    const oneUnion = messages.length > 1 && parts.every((part) => part !== null && part[2] === actual)
    if (!oneUnion) return messages.map((message) => ({ field, account: null, message }))
    const members = [...new Set(parts.map((part) => part![1]!))]
    return [{ field, account: null, message: `Expected ${members.slice(0, -1).join(", ")} or ${members.at(-1)!}, actual ${actual!}` }]
  })
}
