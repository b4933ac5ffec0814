/**
 * The project signature is a footer: it follows the caption after a blank line, and that
 * separator is part of what the signature costs on every platform's caption ceiling.
 */
const separator = "\n\n"

/**
 * Characters as the ceilings count them: Unicode code points, so an emoji outside the Basic
 * Multilingual Plane is one character, not two UTF-16 units.
 */
export const textLength = (text: string): number => Array.from(text).length

/** What the signature takes from each caption ceiling: 0 without one, else separator + signature. */
export const signatureLength = (signature: string): number =>
  signature === "" ? 0 : textLength(separator) + textLength(signature)

export const appendSignature = (text: string, signature: string): string =>
  signature === "" ? text : `${text}${separator}${signature}`
