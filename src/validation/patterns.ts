/**
 * Regular-expression building blocks written so that every common engine reads them alike: ECMA-262
 * with the `u` flag (ajv), Rust's `regex`, Python's `re`, PCRE. Only `\uXXXX` escapes of BMP scalar
 * values are used (no `\u{...}`, no surrogate escapes, no `\s`, no lookaround), so a code generator or
 * fuzzer that copies a pattern from the OpenAPI document gets the behaviour the server has.
 */

/** Inclusive code point ranges. */
export type CodePoints = readonly (readonly [number, number])[]

/** Every scalar value of the BMP (surrogates are not scalar values). */
const BMP_SCALARS: CodePoints = [
  [0x0000, 0xd7ff],
  [0xe000, 0xffff],
]

/** The control characters (Unicode category Cc): C0, DEL and C1 (U+0080-U+009F, such as U+0085 NEL). */
export const CONTROLS: CodePoints = [
  [0x00, 0x1f],
  [0x7f, 0x9f],
]

/** What ECMA-262's `\s` matches (white space and line terminators), spelled out. */
export const WHITESPACE: CodePoints = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]

/** The code points of `characters`, as ranges. */
export function codePointsOf(characters: string): CodePoints {
  return [...characters].map((c) => [c.codePointAt(0) ?? 0, c.codePointAt(0) ?? 0] as const)
}

function subtract(from: CodePoints, excluded: CodePoints): [number, number][] {
  let ranges = from.map(([a, b]): [number, number] => [a, b])
  for (const [low, high] of excluded) {
    ranges = ranges.flatMap(([a, b]): [number, number][] => {
      if (high < a || low > b) return [[a, b]]
      const kept: [number, number][] = []
      if (low > a) kept.push([a, low - 1])
      if (high < b) kept.push([high + 1, b])
      return kept
    })
  }
  return ranges
}

const unicodeEscape = (codePoint: number) => `\\u${codePoint.toString(16).padStart(4, '0')}`

/** A character class matching the code points of `ranges` (BMP): `[\u0000-\u001f...]`. */
export function characterClass(ranges: CodePoints): string {
  return `[${ranges.map(([a, b]) => (a === b ? unicodeEscape(a) : `${unicodeEscape(a)}-${unicodeEscape(b)}`)).join('')}]`
}

/** The control characters allowed in multi-line text (tab, line feed, carriage return). */
export const LINE_CONTROLS: CodePoints = [
  [0x09, 0x0a],
  [0x0d, 0x0d],
]

/** Control characters without the line controls: what multi-line text may not hold. */
export function controlsExcept(allowed: CodePoints): CodePoints {
  return subtract(CONTROLS, allowed)
}

/**
 * An atom matching one Unicode scalar value that is not in `excluded` (BMP code points). Lone
 * surrogates never match; characters beyond the BMP always do.
 */
export function scalarExcept(excluded: CodePoints): string {
  const ranges = subtract(BMP_SCALARS, excluded)
    .map(([a, b]) => (a === b ? unicodeEscape(a) : `${unicodeEscape(a)}-${unicodeEscape(b)}`))
    .join('')
  return `(?:[${ranges}]|[^\\u0000-\\uffff])`
}
