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

/**
 * What the signature takes from each caption ceiling: 0 without one, else separator + signature,
 * counted as the platform counts (code points unless given).
 */
export const signatureLength = (signature: string, length: (text: string) => number = textLength): number =>
  signature === "" ? 0 : length(separator) + length(signature)

export const appendSignature = (text: string, signature: string): string =>
  signature === "" ? text : `${text}${separator}${signature}`
