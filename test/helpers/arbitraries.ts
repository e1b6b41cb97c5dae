import fc from 'fast-check'
import { iso31661, iso31662 } from 'iso-3166'
import { orcidCheckCharacter } from '../../src/validation/orcid.js'

/** The JSON Schema keywords of our TypeBox route schemas that the generators read. */
export interface JsonSchema {
  type?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  minLength?: number
  maxLength?: number
  pattern?: string
  format?: string
  enum?: unknown[]
  minimum?: number
  maximum?: number
  allOf?: JsonSchema[]
  not?: unknown
  minProperties?: number
  anyOf?: JsonSchema[]
  const?: unknown
  items?: JsonSchema
  maxItems?: number
  'x-subdivision'?: { country: string; state: string; requireCountry?: boolean }
}

/** BCP 47 tags as a body may send them, and their canonical forms (the account's `interview_languages`). */
export const LANGUAGE_TAGS: Readonly<Record<string, string>> = {
  en: 'en',
  'EN-us': 'en-US',
  'fr-ca': 'fr-CA',
  'zh-hant-tw': 'zh-Hant-TW',
  de: 'de',
  'pt-BR': 'pt-BR',
  iw: 'he',
}

/** IANA zone names as a body may send them, and as stored (the account's `time_zone`). */
export const TIME_ZONES: Readonly<Record<string, string>> = {
  'Europe/Paris': 'Europe/Paris',
  'america/toronto': 'America/Toronto',
  UTC: 'UTC',
  'US/Eastern': 'America/New_York',
  'asia/tokyo': 'Asia/Tokyo',
}

/** Field-name overrides: a dedicated generator for a field the keywords cannot describe (a real username). */
export type Overrides = Record<string, fc.Arbitrary<unknown>>

const COUNTRIES = iso31661.map((country) => country.alpha2)
const SUBDIVISIONS = iso31662.map(({ code }) => ({
  country: code.slice(0, code.indexOf('-')),
  state: code.slice(code.indexOf('-') + 1),
}))

/** Mixed case, as clients send it: the service accepts codes case-insensitively. */
const anyCase = (value: string) =>
  fc.constantFrom(value, value.toLowerCase(), value.charAt(0) + value.slice(1).toLowerCase())

/** An ISO 3166-1 alpha-2 code in any case. */
export const countryCode = fc.constantFrom(...COUNTRIES).chain(anyCase)

/** A country with one of its subdivisions, the state as `ON`, `on` or `CA-ON`. */
export const countryWithState = fc.constantFrom(...SUBDIVISIONS).chain(({ country, state }) =>
  fc.record({
    country: anyCase(country),
    state: fc.constantFrom(state, state.toLowerCase(), `${country}-${state}`),
  }),
)

/** A valid email address (ajv-formats' `email`); a random tag keeps addresses unique across runs. */
export const email = fc
  .tuple(
    fc.stringMatching(/^[a-z0-9][a-z0-9._+-]{0,20}[a-z0-9]$/).filter((local) => !local.includes('..')),
    fc.constantFrom('example.org', 'uni.example', 'mail.co.example', 'xn--bcher-kva.example'),
    fc.constantFrom('', 'X', 'Grace.'),
  )
  .map(([local, domain, prefix]) => `${prefix}${local}.${Math.random().toString(36).slice(2, 10)}@${domain}`)

/** Characters worth sending: letters of several scripts, astral symbols, SQL and HTML metacharacters. */
const TEXT_CHAR = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...'abcXYZ019 -_.,') },
  fc.constantFrom('é', 'ß', 'Ω', 'Ж', '日', 'ع', '😀', '𝒳', '\u00a0', '\u200b'),
  fc.constantFrom("'", '"', ';', '--', '%', '\\', '<', '>', '&', '/*', '`', '$'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
)

/** Characters that a pattern of the form `^[class]*$` allows, found by trying printable ASCII. */
function classChars(pattern: string): string[] | undefined {
  if (!/^\^\[[^\]]+\]\*\$$/.test(pattern)) return undefined
  const regex = new RegExp(pattern, 'u')
  const chars: string[] = []
  for (let code = 0x20; code < 0x7f; code++) {
    const char = String.fromCharCode(code)
    if (regex.test(char)) chars.push(char)
  }
  return chars
}

/** A string the field's keywords accept after the app trims it. */
function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.enum) return fc.constantFrom(...schema.enum.map(String))
  if (schema.format === 'email') return email
  if (schema.format === 'iso3166-alpha2') return countryCode
  if (schema.format === 'bcp47') return fc.constantFrom(...Object.keys(LANGUAGE_TAGS))
  if (schema.format === 'iana-time-zone') return fc.constantFrom('', ...Object.keys(TIME_ZONES))
  // Distinct ORCID iDs with their check digit, in the stored form (the app would rewrite other forms).
  if (schema.format === 'orcid')
    return fc.stringMatching(/^[0-9]{15}$/).map((digits) => {
      const bare = `${digits}${orcidCheckCharacter(digits)}`
      return `${bare.slice(0, 4)}-${bare.slice(4, 8)}-${bare.slice(8, 12)}-${bare.slice(12)}`
    })
  if (schema.format === 'uri') {
    const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined
    return fc
      .webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true })
      .filter((url) => url.length <= (schema.maxLength ?? 2048) && (!pattern || pattern.test(url)))
  }
  const min = schema.minLength ?? 0
  const max = Math.min(schema.maxLength ?? 300, 300)
  const regex = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined
  const narrow = schema.pattern ? classChars(schema.pattern) : undefined
  const unit = narrow ? fc.constantFrom(...narrow) : TEXT_CHAR
  // Mostly short values, sometimes right at the limit.
  const length = fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, min + 12) }) },
    fc.constant(max),
  )
  return length
    .chain((n) => fc.array(unit, { minLength: n, maxLength: n }))
    .map((chars) => [...chars.join('')].slice(0, max).join(''))
    .filter((value) => (!regex || regex.test(value)) && [...value.trim()].length >= min)
}

function integerArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const maxima = [schema.maximum, ...(schema.allOf ?? []).map((part) => part.maximum)].filter(
    (value): value is number => typeof value === 'number',
  )
  const min = schema.minimum ?? Number.MIN_SAFE_INTEGER
  const max = maxima.length ? Math.min(...maxima) : Number.MAX_SAFE_INTEGER
  return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max))
}

/** A value the field schema accepts. */
export function validValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(validValue))
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.type === 'null') return fc.constant(null)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  if (schema.type === 'string') return stringArbitrary(schema)
  if (schema.type === 'integer') return integerArbitrary(schema)
  if (schema.type === 'boolean') return fc.boolean()
  if (schema.type === 'array' && schema.items)
    return fc.array(validValue(schema.items), { maxLength: Math.min(schema.maxItems ?? 5, 5) })
  throw new Error(`no generator for schema ${JSON.stringify(schema)}`)
}

/**
 * Bodies the object schema accepts: every required field, each optional one present or not
 * (never-fields left out), and a coherent country/state pair where the schema has `x-subdivision`.
 */
export function validBody(
  schema: JsonSchema,
  overrides: Overrides = {},
): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? [])
  const rule = schema['x-subdivision']
  const fields: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    if (field.not !== undefined) continue
    if (rule && (key === rule.country || key === rule.state)) continue
    fields[key] = overrides[key] ?? validValue(field)
  }
  const location = rule
    ? fc.oneof(
        fc.constant({}),
        countryCode.map((country) => ({ [rule.country]: country })),
        fc.constant({ [rule.country]: '', [rule.state]: '' }),
        countryWithState.map(({ country, state }) => ({ [rule.country]: country, [rule.state]: state })),
      )
    : fc.constant({})
  return fc
    .tuple(fc.record(fields, { requiredKeys: [...required] }), location)
    .map(([body, place]) => ({ ...body, ...place }))
    .filter((body) => Object.keys(body).length >= (schema.minProperties ?? 0))
}

export type Mutation =
  | 'drop required field'
  | 'wrong type'
  | 'over-long string'
  | 'blank required string'
  | 'control character'
  | 'lone surrogate'
  | 'unknown field'
  | 'out-of-range integer'
  | 'not in enum'
  | 'pattern or format violation'
  | 'never field'
  | 'empty object'
  | 'not an object'

/** A value of the wrong JSON type for `schema`. */
/** Values of another JSON type (finite numbers only: JSON writes an infinity as null, which may be valid). */
function wrongType(schema: JsonSchema): fc.Arbitrary<unknown> {
  const others = [
    fc.constant(null),
    fc.boolean(),
    ...(schema.type === 'array' ? [fc.constant('x')] : [fc.constant([])]),
    fc.constant({ nested: 'x' }),
    ...(schema.type === 'string' || schema.enum
      ? [fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })]
      : []),
    ...(schema.type === 'integer'
      ? [fc.constantFrom('12', 'abc', '', '1e3', '0x10'), fc.constantFrom(1.5, -0.25, 1e300)]
      : []),
  ]
  return fc.oneof(...others)
}

/** Printable values that break a field's format or its specific pattern (not the generic text one). */
function badValues(schema: JsonSchema): string[] {
  if (schema.format === 'email') return ['not-an-email', 'a@', '@b.example', 'a b@c.example', 'a@b']
  if (schema.format === 'iso3166-alpha2') return ['XX', 'USA', 'c', 'C A', '12']
  if (schema.format === 'iana-time-zone') return ['Mars/Olympus_Mons', '+01:00', 'Nowhere', 'Europe/']
  if (!schema.pattern) return []
  const regex = new RegExp(schema.pattern, 'u')
  return ['not valid!', 'x*y', '#tag', '<b>', 'a\u00e9b', 'ftp://x.example'].filter(
    (value) => !regex.test(value),
  )
}

function isPlainText(schema: JsonSchema): boolean {
  return schema.type === 'string' && !schema.enum && !schema.format
}

/**
 * A body that the schema must reject: a valid body with one mutation applied. Returns the
 * mutation's name with the body so a failure says what was sent.
 */
export function mutatedBody(
  schema: JsonSchema,
  overrides: Overrides = {},
): fc.Arbitrary<{ mutation: Mutation; field?: string; body: unknown }> {
  const properties = schema.properties ?? {}
  /** A clearable field (`value | "" | null`) is mutated as its value's schema; `""` and null stay valid. */
  const prop = (key: string) => {
    const field = properties[key] ?? {}
    return field.anyOf?.find((branch) => branch.type !== 'null' && branch.const === undefined) ?? field
  }
  const clearable = (key: string) => properties[key]?.anyOf !== undefined
  const keys = Object.keys(properties).filter((key) => prop(key).not === undefined)
  const strings = keys.filter((key) => prop(key).type === 'string' || prop(key).enum)
  const required = schema.required ?? []
  const limited = strings.filter((key) => prop(key).maxLength !== undefined)
  const integers = keys.filter((key) => prop(key).type === 'integer')
  const enums = keys.filter((key) => prop(key).enum)
  const patterned = strings.filter((key) => badValues(prop(key)).length > 0)
  const requiredText = required.filter((key) => isPlainText(prop(key)) && (prop(key).minLength ?? 0) > 0)
  const never = Object.keys(properties).filter((key) => prop(key).not !== undefined)

  const base = validBody(schema, overrides)
  const pick = (list: string[]) => fc.constantFrom(...list)
  const set = (field: string, value: fc.Arbitrary<unknown>, mutation: Mutation) =>
    fc.tuple(base, value).map(([body, v]) => ({ mutation, field, body: { ...body, [field]: v } }))

  const mutations: fc.Arbitrary<{ mutation: Mutation; field?: string; body: unknown }>[] = [
    pick(keys).chain((field) =>
      set(
        field,
        wrongType(prop(field)).filter((value) => !clearable(field) || (value !== null && value !== '')),
        'wrong type',
      ),
    ),
    pick(strings).chain((field) =>
      set(
        field,
        fc
          .tuple(
            validValue({ ...prop(field), type: 'string' }),
            fc.constantFrom('\u0000', '\u0001', '\u001b', '\u007f', '\u000b'),
          )
          .map(
            // Between two letters: trimming would remove a control character at either end.
            ([value, control]) => `a${control}b${String(value)}`,
          ),
        'control character',
      ),
    ),
    pick(strings).chain((field) =>
      set(field, fc.constantFrom('\ud800', '\udfff', 'a\ud83db', '\ude00x'), 'lone surrogate'),
    ),
    fc
      .tuple(base, fc.stringMatching(/^[a-z_]{1,20}$/), fc.jsonValue())
      .filter(([, name]) => !(name in properties))
      .map(([body, name, value]) => ({
        mutation: 'unknown field' as const,
        field: name,
        body: { ...body, [name]: value },
      })),
    fc.tuple(base, fc.constantFrom('[]', '"text"', '42', 'null-array')).map(([body, shape]) => ({
      mutation: 'not an object' as const,
      body: shape === '[]' ? [body] : shape === '"text"' ? 'text' : shape === '42' ? 42 : [],
    })),
  ]
  if (required.length) {
    mutations.push(
      fc.tuple(base, pick(required)).map(([body, field]) => {
        const { [field]: _dropped, ...rest } = body
        return { mutation: 'drop required field' as const, field, body: rest }
      }),
    )
  }
  if (requiredText.length) {
    mutations.push(
      pick(requiredText).chain((field) =>
        set(field, fc.constantFrom('', ' ', ' \t ', '\u00a0'), 'blank required string'),
      ),
    )
  }
  if (limited.length) {
    mutations.push(
      pick(limited).chain((field) =>
        set(
          field,
          fc.integer({ min: 1, max: 40 }).map((extra) => 'x'.repeat((prop(field).maxLength ?? 0) + extra)),
          'over-long string',
        ),
      ),
    )
  }
  if (integers.length) {
    mutations.push(
      pick(integers).chain((field) => {
        const schemaOf = prop(field)
        const max = Math.min(
          ...[schemaOf.maximum, ...(schemaOf.allOf ?? []).map((part) => part.maximum)].filter(
            (value): value is number => typeof value === 'number',
          ),
          Number.MAX_SAFE_INTEGER,
        )
        const min = schemaOf.minimum ?? Number.MIN_SAFE_INTEGER
        return set(
          field,
          fc.oneof(
            fc.integer({ min: max + 1, max: max + 1_000_000 }),
            fc.integer({ min: min - 1_000_000, max: min - 1 }),
          ),
          'out-of-range integer',
        )
      }),
    )
  }
  if (enums.length) {
    mutations.push(
      pick(enums).chain((field) =>
        set(field, fc.constantFrom('Corporate', 'unknown', '', ' other_', 'one-time-gift'), 'not in enum'),
      ),
    )
  }
  if (patterned.length) {
    mutations.push(
      pick(patterned).chain((field) => {
        return set(field, fc.constantFrom(...badValues(prop(field))), 'pattern or format violation')
      }),
    )
  }
  if (never.length) {
    mutations.push(pick(never).chain((field) => set(field, fc.constantFrom(0, 1, '1', null), 'never field')))
  }
  if (schema.minProperties) {
    mutations.push(fc.constant({ mutation: 'empty object' as const, body: {} }))
  }
  return fc.oneof(...mutations)
}
