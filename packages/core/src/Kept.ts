/**
 * What is made of a value a use case hands out again while it is unchanged (a cached list's rows
 * array, the `owner`), kept with it: made again only when the owner is another object or one of
 * `parts` (what else the value is made of, compared by identity) is. An adapter keeps its own
 * encoding of a reply this way; each `keptBy()` is its own store, so two adapters keeping
 * different encodings of one owner do not overwrite each other.
 */
export const keptBy = <A>() => {
  const kept = new WeakMap<object, { readonly parts: ReadonlyArray<unknown>; readonly value: A }>()
  return (owner: object, parts: ReadonlyArray<unknown>, make: () => A): A => {
    const known = kept.get(owner)
    if (known !== undefined && known.parts.length === parts.length && known.parts.every((part, i) => part === parts[i])) {
      return known.value
    }
    const value = make()
    kept.set(owner, { parts, value })
    return value
  }
}
