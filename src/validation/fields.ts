import { type TSchema, Type } from 'typebox'
import { type Described, Email, MULTI_LINE_CHAR, Text, Url, wordsOf } from './text.js'

/** Field builders for the write schemas (posts, Q&A, profile sections, the organization profile, the import): each returns the input schema of one field. */

export const ShortText = (description: Described, max = 255) => Text({ max, min: 1, description })
export const LongText = (description: Described, max = 20_000) =>
  Text({ max, min: 1, multiline: true, description })

/** Rich text: HTML, sanitized on write to what src/validation/html.ts keeps; forms give it an editor. */
export function Html(label: string, max: number) {
  const description = { title: label, description: `${label} (HTML, sanitized on write)` }
  return Text({ max, min: 1, multiline: true, input: 'html', description })
}

/**
 * Embeddable markup or its URL: a value that starts with `<` is an embed code (sanitized on write, see
 * src/validation/html.ts `sanitizeEmbed`); anything else must be an http(s) URL.
 */
export function EmbedCode(description: Described, max: number) {
  return Text({
    max,
    min: 1,
    multiline: true,
    input: 'embed',
    pattern: `^(?:<|https?://)${MULTI_LINE_CHAR}*$`,
    message: "must be an embed code (the player's <iframe ...>) or an http(s) URL",
    description,
  })
}

/** Dates are unix seconds; a value that only makes sense as milliseconds is refused. */
/** Above this, a unix time is almost certainly in milliseconds (10^11 s is the year 5138). */
export const LARGEST_UNIX_SECONDS = 99_999_999_999
/** 0001-01-01T00:00:00Z: the earliest date a profile, a post or a Q&A item may give. */
const EARLIEST_UNIX_SECONDS = -62_135_596_800

/**
 * An integer unix time in seconds, from `earliest` (default: the year 1) to the year 5138; a value that
 * only fits milliseconds gets a message saying so.
 */
export function UnixSeconds(described: Described, earliest = EARLIEST_UNIX_SECONDS) {
  return Type.Integer({
    minimum: earliest,
    ...wordsOf(described, ': unix time in seconds (not milliseconds)'),
    'x-input': 'date',
    'x-message': 'must be an integer unix time in seconds, such as 1767225600',
    // A nested schema so that a too-large value gets its own message.
    allOf: [
      {
        maximum: LARGEST_UNIX_SECONDS,
        'x-message': 'looks like unix milliseconds: send unix seconds (divide by 1000)',
      },
    ],
  })
}

export function Year(described: Described) {
  return Type.Integer({
    minimum: 1000,
    maximum: 9999,
    ...wordsOf(described),
    'x-input': 'year',
    'x-message': 'must be a four-digit year',
  })
}

export function NonNegative(described: Described, integer = false) {
  const options = {
    minimum: 0,
    maximum: 1e12,
    ...wordsOf(described),
    'x-message': 'must be a number of at least 0',
  }
  return integer ? Type.Integer(options) : Type.Number(options)
}

export function Currency(described: Described) {
  return Type.String({
    pattern: '^[A-Za-z]{3}$',
    ...wordsOf(described, ': ISO 4217 code such as USD'),
    'x-message': 'must be a three-letter ISO 4217 currency code, such as USD',
  })
}

/** One of a few values, each with its name: `oneOf` of `const` and `title`, which forms offer by name. */
export function Choice<T extends string | number>(
  choices: readonly { const: T; title: string }[],
  described: Described,
) {
  const values = choices.map((choice) => choice.const)
  const options = {
    oneOf: choices.map((choice) => ({ const: choice.const, title: choice.title })),
    ...wordsOf(described),
    'x-message': `must be one of: ${values.join(', ')}`,
  }
  return typeof values[0] === 'number' ? Type.Integer(options) : Type.String(options)
}

export { Email, Url }

/** An import key: stable, chosen by whoever writes the file. */
export const Key = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]+$',
    description,
    'x-message': 'must be a non-empty text of at most 200 characters',
  })

/** An optional field a write may clear: `null`, or `""` (the only way a form body can clear it). */
export const Clearable = <T extends TSchema>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Literal(''), Type.Null()]))

/** A written "" clears a field: it is stored as null. Any other value (undefined: not given) stays. */
export function blankToNull<T>(value: T | ''): T | null {
  return value === '' ? null : value
}
