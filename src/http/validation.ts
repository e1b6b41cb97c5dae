import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import { type ApiError, type ErrorDetail, validationError } from '../errors.js'
import { isCountryCode, subdivisionCode } from '../validation/geo.js'
import { isObject } from '../validation/guards.js'
import { canonicalLanguageTag, canonicalTimeZone } from '../validation/media.js'
import { normalizeOrcid } from '../validation/orcid.js'

/** Marks a body that arrived form-encoded: its values are strings and get decimal coercion. */
export const FORM_BODY = Symbol('form-encoded body')

// ajv-formats is CommonJS: its module object is the plugin, and carries it again as `default`.
const addFormats = addFormatsModule.default

/** What the validator reads of a JSON schema (TypeBox's and any other). */
interface Schema {
  properties?: Record<string, Schema>
  type?: unknown
  anyOf?: Schema[]
  items?: Schema
}

interface SubdivisionRule {
  country: string
  state: string
  /** A state without a country is an error (on create; an update may rely on the stored country). */
  requireCountry?: boolean
}

function createAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    strict: false,
    coerceTypes: false,
    useDefaults: false,
  })
  addFormats(ajv, ['email', 'uri'])
  ajv.addFormat('iso3166-alpha2', {
    type: 'string',
    validate: (value) => value === '' || isCountryCode(value),
  })
  ajv.addFormat('orcid', {
    type: 'string',
    validate: (value) => value === '' || normalizeOrcid(value) !== undefined,
  })
  ajv.addFormat('bcp47', { type: 'string', validate: (value) => canonicalLanguageTag(value) !== undefined })
  ajv.addFormat('iana-time-zone', {
    type: 'string',
    validate: (value) => value === '' || canonicalTimeZone(value) !== undefined,
  })
  // `x-message` is an annotation: the message shown when a value fails the field's checks.
  ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' })
  ajv.addKeyword({
    keyword: 'x-subdivision',
    type: 'object',
    schemaType: 'object',
    errors: true,
    validate: subdivision,
  })
  return ajv
}

const subdivision: SchemaValidateFunction = (rule: SubdivisionRule, data: Record<string, unknown>) => {
  const country = data[rule.country]
  const state = data[rule.state]
  if (typeof state !== 'string' || state === '') return true
  const hasCountry = typeof country === 'string' && country !== ''
  if (hasCountry ? !isCountryCode(country) || subdivisionCode(country, state) : !rule.requireCountry)
    return true
  const message = hasCountry
    ? `must be an ISO 3166-2 subdivision of ${country.toUpperCase()}`
    : `requires ${rule.country}`
  subdivision.errors = [{ keyword: 'x-subdivision', instancePath: `/${rule.state}`, message, params: {} }]
  return false
}

const ajv = createAjv()

/** Decimal forms a form value or path segment may give a number in: integers, and fractions for numbers. */
const DECIMAL = /^(0|-?[1-9][0-9]*)$/
const DECIMAL_FRACTION = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/

/** The JSON type a value of `schema` has: its own `type`, or the first typed branch of a union. */
function typeOf(schema: Schema | undefined): string | undefined {
  if (!schema) return undefined
  if (typeof schema.type === 'string') return schema.type
  const branches = schema.anyOf ?? []
  return branches
    .map((branch) => branch.type)
    .find((type): type is string => typeof type === 'string' && type !== 'null')
}

function coerced(value: string, type: string | undefined, coerce: boolean): unknown {
  if (coerce && type === 'integer' && DECIMAL.test(value)) return Number(value)
  if (coerce && type === 'number' && DECIMAL_FRACTION.test(value)) return Number(value)
  return value.trim()
}

/**
 * Sets `out[key]` as an own property even for `__proto__`, which plain assignment would take as the
 * object's prototype: the key then reaches the schema, which refuses it like any unknown field.
 */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  else out[key] = value
}

/**
 * Trims strings and, for form bodies and path parameters, turns decimal strings into numbers where
 * the schema wants a number. A form's array-typed field takes one value or a repeated key; a repeated
 * key anywhere else is reported. Returns a fresh object; the input is not changed.
 */
function normalize(
  data: Record<string, unknown>,
  schema: Schema,
  coerce: boolean,
  form: boolean,
): { value: Record<string, unknown>; repeated: ErrorDetail[] } {
  const out: Record<string, unknown> = {}
  const repeated: ErrorDetail[] = []
  for (const [key, value] of Object.entries(data)) {
    const property = schema.properties?.[key]
    const type = typeOf(property)
    if (form && type === 'array') {
      const values = (Array.isArray(value) ? value : [value]).filter((item) => item !== '')
      const itemType = typeOf(property?.items)
      put(
        out,
        key,
        values.map((item) => (typeof item === 'string' ? coerced(item, itemType, true) : item)),
      )
    } else if (form && Array.isArray(value)) {
      repeated.push({ field: key, message: 'is repeated; send each field once' })
    } else if (typeof value !== 'string') put(out, key, value)
    else put(out, key, coerced(value, type, coerce))
  }
  return { value: out, repeated }
}

function fieldOf(error: ErrorObject, part: string): string {
  const path = error.instancePath.replace(/^\//, '').replaceAll('/', '.')
  // A missing or unknown property of a nested object is named with the path to that object.
  const property =
    error.keyword === 'required'
      ? error.params.missingProperty
      : error.keyword === 'additionalProperties'
        ? error.params.additionalProperty
        : undefined
  if (property !== undefined) return path ? `${path}.${String(property)}` : String(property)
  return path || part
}

const TYPE_NAMES: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  object: 'an object',
  array: 'an array',
  boolean: 'a boolean',
}

function messageOf(error: ErrorObject): string {
  const custom: unknown = error.parentSchema?.['x-message']
  const { params } = error
  switch (error.keyword) {
    case 'required':
      return 'is required'
    case 'additionalProperties':
      return 'is not a known field'
    case 'type':
      // Numeric fields explain their format ("a positive decimal integer"); text fields just say "a string".
      if (typeof custom === 'string' && params.type !== 'string') return custom
      return `must be ${TYPE_NAMES[String(params.type)] ?? String(params.type)}`
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must be at least ${params.limit} characters long`
    case 'maxLength':
      return `must be at most ${params.limit} characters long`
    case 'minItems':
      return `must have at least ${params.limit} items`
    case 'maxItems':
      return `must have at most ${params.limit} items`
    case 'enum':
      return `must be one of: ${[params.allowedValues].flat().join(', ')}`
    case 'x-subdivision':
      return error.message ?? 'is not valid'
    default:
      return typeof custom === 'string' ? custom : (error.message ?? 'is not valid')
  }
}

/** Turns ajv errors into the contract's `details`: one entry per offending field. */
export function toDetails(errors: ErrorObject[], part: string): ErrorDetail[] {
  const details = new Map<string, ErrorDetail>()
  for (const error of errors) {
    // A named choice's branches (`oneOf` of `const`) each fail; the `oneOf` error after them carries the message.
    if (error.keyword === 'const' && /\/oneOf\/\d+\/const$/.test(error.schemaPath)) continue
    const field = fieldOf(error, part)
    if (!details.has(field)) details.set(field, { field, message: messageOf(error) })
  }
  return [...details.values()]
}

function bodyMissing(part: string): ApiError {
  return validationError([{ field: part, message: 'must be a JSON or form-encoded object' }])
}

/** A compiled validator: the normalized value, or the `validation_failed` ApiError of every offending field. */
export type Validator<T = unknown> = (
  data: unknown,
) => { value: T; error?: undefined } | { value?: undefined; error: ApiError }

/**
 * Fastify's schema compiler: one ajv validator per schema, compiled on the route's first request (see
 * `compileValidator`), reporting every offending field at once as a `validation_failed` ApiError.
 */
export const validatorCompiler: FastifySchemaCompiler<Schema> = ({ schema, httpPart }) => {
  const validate = compileValidator(schema, httpPart)
  // An absent part is left alone unless its schema asks for an object.
  return (data: unknown) => (data == null && schema.type !== 'object' ? { value: data } : validate(data))
}

/**
 * The validator of `schema` for one part of a request (`body`, `params`, ...), as a route gets it; what it
 * accepts has the schema's type `T` (ajv's compiled check is the type guard). ajv compiles the schema on
 * the validator's first call, not here: compiled validators of every route and tool made at start-up
 * held tens of MiB of heap for routes a process may never serve (docs/performance.md, "Idle memory").
 */
export function compileValidator<T = unknown>(schema: Schema, httpPart: string | undefined): Validator<T> {
  let compiled: ValidateFunction<T> | undefined
  const part = httpPart === 'body' ? 'body' : (httpPart ?? 'request')
  const coerceAlways = httpPart === 'params' || httpPart === 'querystring'
  return (data: unknown) => {
    if (data === null || data === undefined) return { error: bodyMissing(part) }
    if (!isObject(data)) {
      return { error: validationError([{ field: part, message: 'must be an object' }]) }
    }
    const form = FORM_BODY in data
    const { value, repeated } = normalize(data, schema, coerceAlways || form, form)
    if (repeated.length > 0) return { error: validationError(repeated) }
    compiled ??= ajv.compile<T>(schema)
    if (compiled(value)) return { value }
    return { error: validationError(toDetails(compiled.errors ?? [], part)) }
  }
}
