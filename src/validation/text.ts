import { Type } from 'typebox'
import { CONTROLS, controlsExcept, LINE_CONTROLS, scalarExcept } from './patterns.js'

/** No control characters and no lone surrogates, in a pattern every regex engine reads (patterns.ts). */
const SINGLE_LINE = `^${scalarExcept(CONTROLS)}*$`
/** One character of multi-line text: as above, but `\t` (09), `\n` (0a) and `\r` (0d) are allowed. */
export const MULTI_LINE_CHAR = scalarExcept(controlsExcept(LINE_CONTROLS))
const MULTI_LINE = `^${MULTI_LINE_CHAR}*$`

/**
 * A field's words: its label alone (a string), or the label (`title`, what a form shows) and the longer
 * text the API reference gives (`description`).
 */
export type Described = string | { title: string; description: string }

/**
 * The schema keywords of a field's words: `description` always; `title` (the form's label) when the
 * description says more than the label, as when a builder adds its format (`suffix`).
 */
export function wordsOf(described: Described, suffix = ''): { title?: string; description: string } {
  const { title, description } =
    typeof described === 'string' ? { title: described, description: described } : described
  const full = `${description}${suffix}`
  return full === title ? { description: full } : { title, description: full }
}

interface TextOptions {
  /** Longest value in code points. */
  max: number
  /** Shortest value; 1 for required fields (after trimming). */
  min?: number
  multiline?: boolean
  description?: Described
  /** Replaces the default message of the pattern check. */
  pattern?: string
  message?: string
  /** The widget a form gives a multi-line field (default: a text area). */
  input?: 'html' | 'embed'
}

/** A trimmed text field: well-formed Unicode, no control characters, length in code points. */
export function Text(options: TextOptions) {
  return Type.String({
    minLength: options.min ?? 0,
    maxLength: options.max,
    pattern: options.pattern ?? (options.multiline ? MULTI_LINE : SINGLE_LINE),
    'x-message':
      options.message ??
      (options.multiline
        ? 'must be well-formed text without control characters other than line breaks and tabs'
        : 'must be well-formed text on one line, without control characters'),
    ...(options.multiline ? { 'x-input': options.input ?? 'longtext' } : {}),
    ...(options.description ? wordsOf(options.description) : {}),
  })
}

/** A 1 or 0 flag; a switch's description says what 1 means (`1: ...`). */
export function Flag(described: Described) {
  return Type.Integer({ minimum: 0, maximum: 1, ...wordsOf(described), 'x-message': 'must be 1 or 0' })
}

export function Email(described: Described) {
  return Type.String({
    format: 'email',
    maxLength: 254,
    ...wordsOf(described),
    'x-message': 'must be a valid email address',
  })
}

/**
 * An http(s) URL: the one rule of every URL field (profile sections, posts, the inquiry `website`):
 * an RFC 3986 URI (so no spaces, quotes or angle brackets) with a lower-case scheme and a host, and no
 * user name before it (`https://trusted.example@evil.example`).
 */
export function Url(described: Described) {
  return Type.String({
    format: 'uri',
    pattern: '^https?://[^/?#@]+(?:[/?#]|$)',
    maxLength: 2048,
    ...wordsOf(described, ': an http(s) URL'),
    'x-message': 'must be an http(s) URL',
  })
}

export function CountryCode(described: Described) {
  return Type.String({
    format: 'iso3166-alpha2',
    ...wordsOf(described, ': ISO 3166-1 alpha-2, case-insensitive ("" clears it)'),
    'x-message': 'must be an ISO 3166-1 alpha-2 country code, such as CA or US',
  })
}

export function StateCode(described: Described) {
  return Type.String({
    maxLength: 10,
    pattern: '^([A-Za-z0-9]{1,3}(-[A-Za-z0-9]{1,3})?)?$',
    ...wordsOf(described, ': ISO 3166-2 subdivision of the country, as ON or CA-ON'),
    // Forms offer the subdivisions of the country chosen in the same form.
    'x-input': 'subdivision',
    'x-message': 'must be an ISO 3166-2 subdivision code of the country, such as ON or CA-ON',
  })
}

/** A positive decimal integer id (path parameters, ids in bodies): 1 .. 2^53-1. */
export function Id(description: string) {
  return Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description,
    'x-message': 'must be a positive decimal integer (at most 2^53-1)',
  })
}

/** The same rule as `Id` for a raw path segment: decimal, no sign or leading zero, 1 .. 2^53-1. */
export function isPositiveId(value: string): boolean {
  return /^[1-9][0-9]{0,15}$/.test(value) && Number(value) <= Number.MAX_SAFE_INTEGER
}
