/**
 * The form generator's model: turns the JSON Schema of a write (generated from the server's TypeBox
 * tables, src/generated/schemas.json) into the fields of a form, and a form's values back into the
 * request body. Nothing here knows a section by name.
 */

export interface JsonSchema {
  type?: string
  /** A form's label for the field, when its description says more. */
  title?: string
  const?: string | number
  enum?: readonly (string | number)[]
  anyOf?: readonly JsonSchema[]
  /** Named choices: each a `const` with its `title`. */
  oneOf?: readonly JsonSchema[]
  not?: JsonSchema
  format?: string
  pattern?: string
  description?: string
  minimum?: number
  maximum?: number
  maxLength?: number
  properties?: Readonly<Record<string, JsonSchema | undefined>>
  items?: JsonSchema
  required?: readonly string[]
  'x-message'?: string
  /** The widget of a field its type alone does not tell (a date, rich text, a subdivision of the form's country). */
  'x-input'?: string
  /** What a form says under the field, where the description speaks to programs (unix seconds, BCP 47). */
  'x-hint'?: string
}

export type FieldKind =
  | 'text'
  | 'longtext'
  | 'html'
  | 'embed'
  | 'email'
  | 'url'
  | 'integer'
  | 'number'
  | 'date'
  | 'year'
  | 'flag'
  | 'choice'
  | 'country'
  | 'subdivision'
  | 'datetime'
  | 'tags'
  | 'time-zone'

export interface ChoiceOption {
  value: string
  label: string
}

export interface FieldSpec {
  name: string
  label: string
  /** What the schema says beyond the label (format, units). */
  hint: string
  kind: FieldKind
  required: boolean
  maxLength?: number
  options: readonly ChoiceOption[]
}

/** Form values are what inputs hold: text, or a checkbox's state. */
export type FormValues = Record<string, string | boolean>

/** The base schema of a field that may also be "" or null (a clearable optional field). */
function baseOf(schema: JsonSchema): JsonSchema {
  if (!schema.anyOf) return schema
  const branches = schema.anyOf.filter((branch) => branch.type !== 'null' && branch.const !== '')
  // `anyOf` of named constants (an identifier's policy) is a choice like `oneOf`.
  if (branches.length > 1 && branches.every((branch) => branch.const !== undefined)) {
    const { anyOf: _, ...rest } = schema
    return { ...rest, oneOf: branches }
  }
  return branches[0] ?? schema
}

/**
 * The label is the schema's `title`, else its description, else the field's name; the hint is what the
 * description adds to the title (all of it when it does not start with the title). A switch's description
 * says what 1 means ("1: publish ...").
 */
function labelAndHint(name: string, schema: JsonSchema): { label: string; hint: string } {
  const { title, description = '' } = schema
  const named = name.replaceAll('_', ' ').replace(/^./, (c) => c.toUpperCase())
  if (description.startsWith('1: ')) return { label: title ?? named, hint: `On: ${description.slice(3)}` }
  if (!title || title === description) return { label: withoutProgramWords(description) || named, hint: '' }
  if (!description.startsWith(title)) return { label: title, hint: withoutProgramWords(description) }
  return { label: title, hint: withoutProgramWords(description.slice(title.length).replace(/^[:,]?\s*/, '')) }
}

/** A description's note on how a program clears a field, left out of a form: there, emptying it does. */
const withoutProgramWords = (hint: string) => hint.replace(/\s*\((""|\[\]) (clears it|for none)\)/g, '')

/** A date input is a calendar: the API's unix seconds, and its null, mean nothing there. */
const dateHint = (hint: string) =>
  hint
    .replace(/:?\s*unix time in seconds( \(not milliseconds\))?/g, '')
    .replace(/; null cancels\./g, '; empty: none.')

/** A choice's options: named ones (`oneOf` of `const` + `title`), else the values of an `enum`. */
function optionsOf(base: JsonSchema): ChoiceOption[] {
  if (base.oneOf)
    return base.oneOf.map((choice) => ({
      value: String(choice.const),
      label: choice.title ?? String(choice.const),
    }))
  return (base.enum ?? []).map((value) => ({ value: String(value), label: String(value) }))
}

const INPUTS: ReadonlySet<string> = new Set<FieldKind>([
  'longtext',
  'html',
  'embed',
  'date',
  'year',
  'subdivision',
  'datetime',
  'tags',
  'time-zone',
])

function kindOf(base: JsonSchema): FieldKind {
  const input = base['x-input']
  if (input && INPUTS.has(input)) return input as FieldKind
  if (base.oneOf || base.enum) return 'choice'
  if (base.type === 'integer') return base.minimum === 0 && base.maximum === 1 ? 'flag' : 'integer'
  if (base.type === 'number') return 'number'
  if (base.format === 'iso3166-alpha2') return 'country'
  if (base.format === 'email') return 'email'
  if (base.format === 'uri') return 'url'
  return 'text'
}

/**
 * The fields of a write's schema, in its order; fields a write never accepts (`not: {}`) are left out,
 * and so are lists and nested objects (a post's tags), which a screen offers with controls of their own.
 */
export function fieldsOf(schema: JsonSchema): FieldSpec[] {
  return countryBeforeSubdivision(fieldsInOrder(schema).filter((field) => !SCHEDULE_FIELDS.has(field.name)))
}

/** Scheduled publishing and unpublishing (`publish_at`, `unpublish_at`) belong to a publishing panel, not to the record's form. */
const SCHEDULE_FIELDS: ReadonlySet<string> = new Set(['publish_at', 'unpublish_at'])

/** A subdivision is chosen from its country's list: the country comes first, the subdivision right after it. */
function countryBeforeSubdivision(fields: FieldSpec[]): FieldSpec[] {
  const country = fields.findIndex((field) => field.kind === 'country')
  const subdivision = fields.findIndex((field) => field.kind === 'subdivision')
  if (country < 0 || subdivision < 0 || subdivision > country) return fields
  const [moved] = fields.splice(subdivision, 1)
  // The removal moved the country one place up: `country` is now the place right after it.
  if (moved) fields.splice(country, 0, moved)
  return fields
}

function fieldsInOrder(schema: JsonSchema): FieldSpec[] {
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties ?? {})
    .flatMap(([name, property]) =>
      property &&
      !property.not &&
      // A list of words (`x-input: tags`) is one text field; other lists and objects have controls of their own.
      (baseOf(property).type !== 'array' || baseOf(property)['x-input'] === 'tags') &&
      baseOf(property).type !== 'object'
        ? [{ name, property }]
        : [],
    )
    .map(({ name, property }) => {
      const base = baseOf(property)
      const { label, hint } = labelAndHint(name, base.description ? base : property)
      const kind = kindOf(base)
      return {
        name,
        label,
        // A picker of names needs no word on code formats, nor an editor on HTML.
        // A date-and-time input shows UTC: its hint says so rather than the API's unix seconds.
        hint:
          base['x-hint'] ??
          (kind === 'country' || kind === 'subdivision' || kind === 'html'
            ? ''
            : kind === 'datetime'
              ? 'Date and time in UTC'
              : kind === 'date'
                ? dateHint(hint)
                : hint),
        kind,
        required: required.has(name),
        ...(base.maxLength ? { maxLength: base.maxLength } : {}),
        options: kind === 'choice' ? optionsOf(base) : [],
      }
    })
}

/** A unix time in seconds as a date input's value (UTC), and back. */
export function dateInputOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10)
}
function secondsOf(date: string): number | string {
  const parsed = Date.parse(`${date}T00:00:00Z`)
  return Number.isNaN(parsed) ? date : parsed / 1000
}

/** A unix time in seconds as a date-and-time input's value, in UTC (`2026-12-01T14:30`), and back. */
export function dateTimeInputOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16)
}
function secondsOfDateTime(value: string): number | string {
  const parsed = Date.parse(`${value}:00Z`)
  return Number.isNaN(parsed) ? value : parsed / 1000
}

/** A list of words as one text (`en, fr-CA`), and back: separated by commas or semicolons. */
const wordsOf = (text: string) =>
  text
    .split(/[,;]/)
    .map((word) => word.trim())
    .filter(Boolean)

/** The form values of a stored element (null and absent fields are empty). */
export function valuesOf(
  fields: readonly FieldSpec[],
  element: Readonly<Record<string, unknown>> = {},
): FormValues {
  const values: FormValues = {}
  for (const field of fields) {
    const value = element[field.name]
    if (field.kind === 'flag') values[field.name] = value === 1
    else if (value === null || value === undefined) values[field.name] = ''
    else if (field.kind === 'date' && typeof value === 'number') values[field.name] = dateInputOf(value)
    else if (field.kind === 'datetime' && typeof value === 'number')
      values[field.name] = dateTimeInputOf(value)
    else if (field.kind === 'tags' && Array.isArray(value)) values[field.name] = value.join(', ')
    else values[field.name] = String(value)
  }
  return values
}

/** A number when the text is one; else the text itself, so that the server names what is wrong. */
function numberOf(text: string): number | string {
  const value = Number(text.trim())
  return text.trim() !== '' && Number.isFinite(value) ? value : text
}

function wireValue(field: FieldSpec, value: string | boolean): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0
  switch (field.kind) {
    case 'integer':
    case 'number':
    case 'year':
      return numberOf(value)
    case 'date':
      return secondsOf(value)
    case 'datetime':
      return secondsOfDateTime(value)
    case 'tags':
      return wordsOf(value)
    case 'choice':
      return field.options.some((option) => option.value === value && /^\d+$/.test(value))
        ? Number(value)
        : value
    default:
      return value
  }
}

/**
 * The request body of a form. `create`: every filled field. `update`: only the fields that differ from
 * `original`; an emptied optional field is sent as "" (which clears it).
 */
export function bodyOf(
  fields: readonly FieldSpec[],
  values: FormValues,
  mode: 'create' | 'update',
  original: FormValues = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const field of fields) {
    const value = values[field.name] ?? ''
    if (mode === 'update' && value === (original[field.name] ?? (field.kind === 'flag' ? false : '')))
      continue
    if (value === '') {
      // An emptied list is the empty list; any other emptied field is "" (which clears it).
      if (mode === 'update' && !field.required) body[field.name] = field.kind === 'tags' ? [] : ''
      continue
    }
    body[field.name] = wireValue(field, value)
  }
  return body
}
