import { type TSchema, Type } from 'typebox'
import { Email, MULTI_LINE_CHAR, Text, Url } from './text.js'

/** Field builders for the write schemas (posts, Q&A, profile sections, the organization profile, the import): each returns the input schema of one field. */

export const ShortText = (description: string, max = 255) => Text({ max, min: 1, description })
export const LongText = (description: string, max = 20_000) =>
  Text({ max, min: 1, multiline: true, description })

/**
 * Embeddable markup or its URL: a value that starts with `<` is an embed code (sanitized on write, see
 * src/validation/html.ts `sanitizeEmbed`); anything else must be an http(s) URL.
 */
export function EmbedCode(description: string, max: number) {
  return Text({
    max,
    min: 1,
    multiline: true,
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
export function UnixSeconds(description: string, earliest = EARLIEST_UNIX_SECONDS) {
  return Type.Integer({
    minimum: earliest,
    description: `${description}: unix time in seconds (not milliseconds)`,
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

export function Year(description: string) {
  return Type.Integer({ minimum: 1000, maximum: 9999, description, 'x-message': 'must be a four-digit year' })
}

export function NonNegative(description: string, integer = false) {
  const options = { minimum: 0, maximum: 1e12, description, 'x-message': 'must be a number of at least 0' }
  return integer ? Type.Integer(options) : Type.Number(options)
}

export function Currency(description: string) {
  return Type.String({
    pattern: '^[A-Za-z]{3}$',
    description: `${description}: ISO 4217 code such as USD`,
    'x-message': 'must be a three-letter ISO 4217 currency code, such as USD',
  })
}

export function Choice<T extends string | number>(values: readonly T[], description: string) {
  const first = values[0]
  const options = {
    enum: [...values],
    description,
    'x-message': `must be one of: ${values.join(', ')}`,
  }
  return typeof first === 'number' ? Type.Integer(options) : Type.String(options)
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
