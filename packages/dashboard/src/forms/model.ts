/**
 * The form generator's model: turns the JSON Schema of a write (generated from the server's TypeBox
 * tables, src/generated/schemas.json) into the fields of a form, and a form's values back into the
 * request body. Nothing here knows a section by name.
 */

export interface JsonSchema {
  type?: string
  enum?: readonly (string | number)[]
  anyOf?: readonly JsonSchema[]
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
  /** An explicit widget for a string the type alone does not tell (a subdivision of the form's country). */
  'x-input'?: string
}

export type Markup = 'html' | 'embed'

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

const MULTI_LINE = '\\u0009-\\u000a'

/** The base schema of a field that may also be "" or null (a clearable optional field). */
function baseOf(schema: JsonSchema): JsonSchema {
  if (!schema.anyOf) return schema
  return (
    schema.anyOf.find(
      (branch) => branch.type !== 'null' && !(branch.enum?.length === 1 && branch.enum[0] === ''),
    ) ?? schema
  )
}

/** Where a description's label ends: its first ": " or ", " outside parentheses. */
function labelEnd(description: string): number {
  let depth = 0
  for (let index = 0; index < description.length - 1; index++) {
    const char = description[index]
    if (char === '(') depth++
    else if (char === ')') depth--
    else if (depth === 0 && (char === ':' || char === ',') && description[index + 1] === ' ') return index
  }
  return -1
}

/**
 * "Start: unix time in seconds (not milliseconds)" -> label "Start", hint the rest; "Email address,
 * unique within the organization" -> "Email address" and "unique within the organization".
 */
function labelAndHint(name: string, description: string | undefined): { label: string; hint: string } {
  const named = name.replaceAll('_', ' ').replace(/^./, (c) => c.toUpperCase())
  if (!description) return { label: named, hint: '' }
  // A switch's description says what 1 means ("1: publish the directory pages"): the name is the label.
  if (description.startsWith('1: ')) return { label: named, hint: `On: ${description.slice(3)}` }
  const cleaned = description.replace(/\s*\(HTML[^)]*\)/, '')
  const end = labelEnd(cleaned)
  if (end < 0) return { label: cleaned, hint: '' }
  return { label: cleaned.slice(0, end), hint: cleaned.slice(end + 2) }
}

/** Options of an enum, named by the description when it lists them ("71 professional, 73 personal"). */
function optionsOf(values: readonly (string | number)[], hint: string): ChoiceOption[] {
  return values.map((value) => {
    const named = hint.match(new RegExp(`(?:^|, )${String(value)} ([^,]+)`))
    return { value: String(value), label: named?.[1] ?? String(value) }
  })
}

function kindOf(base: JsonSchema, markup: Markup | undefined): FieldKind {
  if (markup) return markup
  if (base.enum) return 'choice'
  if (base.type === 'integer') {
    if (base.minimum === 0 && base.maximum === 1) return 'flag'
    if (base.description?.includes('unix time in seconds')) return 'date'
    if (base.minimum === 1000 && base.maximum === 9999) return 'year'
    return 'integer'
  }
  if (base.type === 'number') return 'number'
  if (base.format === 'iso3166-alpha2') return 'country'
  if (base['x-input'] === 'subdivision') return 'subdivision'
  if (base.format === 'email') return 'email'
  if (base.format === 'uri') return 'url'
  if (base.pattern?.includes(MULTI_LINE) || (base.maxLength ?? 0) > 1000) return 'longtext'
  return 'text'
}

/**
 * The fields of a write's schema, in its order; fields a write never accepts (`not: {}`) are left out,
 * and so are lists and nested objects (a post's tags), which a screen offers with controls of their own.
 */
export function fieldsOf(schema: JsonSchema, markup: Readonly<Record<string, Markup>> = {}): FieldSpec[] {
  return countryBeforeSubdivision(fieldsInOrder(schema, markup))
}

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

function fieldsInOrder(schema: JsonSchema, markup: Readonly<Record<string, Markup>>): FieldSpec[] {
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties ?? {})
    .flatMap(([name, property]) =>
      property && !property.not && baseOf(property).type !== 'array' && baseOf(property).type !== 'object'
        ? [{ name, property }]
        : [],
    )
    .map(({ name, property }) => {
      const base = baseOf(property)
      const { label, hint } = labelAndHint(name, base.description ?? property.description)
      const kind = kindOf(base, markup[name])
      return {
        name,
        label,
        // A picker of names needs no word on code formats.
        hint: kind === 'country' || kind === 'subdivision' ? '' : hint,
        kind,
        required: required.has(name),
        ...(base.maxLength ? { maxLength: base.maxLength } : {}),
        options: base.enum ? optionsOf(base.enum, hint) : [],
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
      if (mode === 'update' && !field.required) body[field.name] = ''
      continue
    }
    body[field.name] = wireValue(field, value)
  }
  return body
}
