import type { ErrorDetail } from '../errors.js'
import { compileValidator, FORM_BODY } from '../http/validation.js'
import { INQUIRY_KINDS, type InquiryKind, isInquiryKind, kindFields } from '../inquiries/kinds.js'
import { INQUIRY_SCHEMAS, type InquiryInput, toInquiryInput } from '../inquiries/schemas.js'
import { render } from './templates.js'

/**
 * The contact form of the expert page, built from the inquiry kinds' table (src/inquiries/kinds.ts):
 * the sender's fields, then the kind's own, validated by the API's own schema of that kind.
 */

type Control = 'text' | 'email' | 'tel' | 'url' | 'date' | 'select' | 'textarea'

interface FormField {
  name: string
  label: string
  control: Control
  required: boolean
  maxLength?: number
  autocomplete?: string
  options?: { value: string; label: string }[]
}

const SENDER_FIELDS: FormField[] = [
  {
    name: 'firstname',
    label: 'First name',
    control: 'text',
    required: true,
    maxLength: 255,
    autocomplete: 'given-name',
  },
  {
    name: 'lastname',
    label: 'Last name',
    control: 'text',
    required: false,
    maxLength: 255,
    autocomplete: 'family-name',
  },
  { name: 'email', label: 'Email', control: 'email', required: true, maxLength: 254, autocomplete: 'email' },
  { name: 'phone', label: 'Phone', control: 'tel', required: false, maxLength: 32, autocomplete: 'tel' },
  {
    name: 'organization',
    label: 'Organization',
    control: 'text',
    required: false,
    maxLength: 255,
    autocomplete: 'organization',
  },
]

const MESSAGE: FormField = {
  name: 'message',
  label: 'Message',
  control: 'textarea',
  required: true,
  maxLength: 5000,
}

/** The honeypot: hidden from people (and screen readers), filled in by form-filling robots. */
export const HONEYPOT = 'nickname'
/** Form fields that are not inquiry fields. */
const FORM_ONLY = new Set(['token', 'kind', HONEYPOT])

function kindFormFields(kind: InquiryKind): FormField[] {
  return kindFields(kind).map(([name, field]) => ({
    name,
    label: field.label,
    control: field.choices ? 'select' : field.time ? 'date' : 'text',
    required: field.optional !== true,
    ...(field.choices
      ? { options: Object.entries(field.choices).map(([value, label]) => ({ value, label })) }
      : field.time
        ? {}
        : { maxLength: 5000 }),
  }))
}

const fieldsOf = (kind: InquiryKind) => [...SENDER_FIELDS, ...kindFormFields(kind), MESSAGE]

/** A kind's name as a person reads it: "general" -> "General inquiry". */
export function kindLabel(kind: InquiryKind): string {
  const { label } = INQUIRY_KINDS[kind]
  return `${label.charAt(0).toUpperCase()}${label.slice(1)} inquiry`
}

/** The kinds of `allowed` that exist (settings name only kinds of the table). */
export function allowedKinds(allowed: readonly string[]): InquiryKind[] {
  return allowed.filter(isInquiryKind)
}

export interface FormView {
  action: string
  kind: InquiryKind
  token: string
  /** Who receives the message, and whether a confirmation is sent (src/directory/contact.ts). */
  recipients: string
  /** What was sent, shown again after a refusal. */
  values?: Record<string, string>
  problem?: string
  errors?: ErrorDetail[]
}

/** The form's HTML. */
export function renderContactForm(view: FormView): string {
  const errors = view.errors ?? []
  const fields = fieldsOf(view.kind)
  const labelOf = new Map(fields.map((field) => [field.name, field.label]))
  return render('contactForm', {
    action: view.action,
    kind: view.kind,
    token: view.token,
    recipients: view.recipients,
    problem: view.problem,
    errors: errors.map((error) => ({
      field: labelOf.has(error.field) ? error.field : 'message',
      label: labelOf.get(error.field) ?? error.field,
      message: error.message,
    })),
    fields: fields.map((field) => ({
      ...field,
      value: view.values?.[field.name] ?? '',
      error: errors.find((error) => error.field === field.name)?.message,
    })),
  })
}

/** The text values of a submitted form (what it shows again after a refusal). */
export function submittedValues(body: unknown): Record<string, string> {
  if (typeof body !== 'object' || body === null) return {}
  return Object.fromEntries(
    Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  )
}

const validators = new Map(
  Object.entries(INQUIRY_SCHEMAS).map(([kind, schema]) => [
    kind,
    compileValidator<Record<string, unknown>>(schema, 'body'),
  ]),
)

/** `YYYY-MM-DD` (a date input) as unix seconds at midnight UTC; anything else is left for the schema to refuse. */
function dateToSeconds(value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (!match) return value
  const time = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))
  return Number.isNaN(time) ? value : String(time / 1000)
}

/**
 * The inquiry a submitted form asks for, or every problem with its fields at once: the form's own
 * fields are dropped, empty optional fields left out, dates converted, and the rest validated as the
 * API validates a form-encoded inquiry of that kind.
 */
export function readSubmission(
  kind: InquiryKind,
  username: string,
  values: Record<string, string>,
): { input: InquiryInput; errors?: undefined } | { errors: ErrorDetail[]; input?: undefined } {
  const times = new Set(
    kindFields(kind)
      .filter(([, field]) => field.time)
      .map(([name]) => name),
  )
  const optional = new Set(
    fieldsOf(kind)
      .filter((field) => !field.required)
      .map((field) => field.name),
  )
  const body: Record<string | symbol, unknown> = { [FORM_BODY]: true, username }
  for (const [name, value] of Object.entries(values)) {
    if (FORM_ONLY.has(name) || name === 'username') continue
    if (value.trim() === '' && optional.has(name)) continue
    body[name] = times.has(name) ? dateToSeconds(value) : value
  }
  const validate = validators.get(kind)
  if (!validate) throw new Error(`No validator for the inquiry kind ${kind}`)
  const result = validate(body)
  if (result.error) return { errors: result.error.details ?? [] }
  return { input: toInquiryInput(kind, result.value) }
}
