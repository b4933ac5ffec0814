/**
 * A canonical form of a request body (keys sorted at every depth, undefined dropped), so that the
 * same request sent twice with its keys in another order is recognised as the same.
 */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortKeys(value))

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value).sort().flatMap((key) => {
        const inner = (value as Record<string, unknown>)[key]
        return inner === undefined ? [] : [[key, sortKeys(inner)]]
      })
    )
  }
  return value
}
