import { useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { ApiFailure, dataOf, messageOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { UnsavedChangesGuard, useDirty } from '../forms/dirty.tsx'
import generated from '../generated/schemas.json'
import { sectionLabel } from '../schemas.ts'
import { useAction } from '../ui/action.tsx'
import { ErrorNote, Loading, Notice } from '../ui/parts.tsx'

type Settings = components['schemas']['WorkflowSettings']
type Role = Settings['review']['roles'][number]
type Section = NonNullable<Settings['review']['sections']>[number]
type Limit = keyof Settings['gate']

/** The choices, from the server's own tables (scripts/dashboard-schema.ts). */
const ROLES: readonly Role[] = generated.workflow.roles.filter(isRole)
const SECTIONS: readonly Section[] = generated.workflow.sections.filter(isSection)
// The generated file is JSON (plain strings): these narrow its names to the API's enums, which it holds.
function isRole(name: string): name is Role {
  return generated.workflow.roles.includes(name)
}
function isSection(name: string): name is Section {
  return generated.workflow.sections.includes(name)
}

const LIMITS: readonly { name: Limit; label: string; unit: string }[] = [
  { name: 'photo_min_px', label: 'Photo, shorter side at least', unit: 'px' },
  { name: 'tagline_max', label: 'Tagline at most', unit: 'characters' },
  { name: 'biography_max', label: 'Biography at most', unit: 'characters of text' },
  { name: 'topics_min', label: 'Topics at least', unit: 'topics' },
]

const partLabel = (part: Section) =>
  part === 'account' ? 'Account' : part === 'avatar' ? 'Photo' : sectionLabel(part)

interface Form {
  roles: Role[]
  /** Every part needs review (sections: null), or only the ones ticked. */
  everyPart: boolean
  sections: Section[]
  /** Each limit as typed; unchecked: not checked (null). */
  gate: Record<Limit, { on: boolean; value: string }>
}

export function formOf(settings: Settings): Form {
  const gate = Object.fromEntries(
    LIMITS.map(({ name }) => {
      const value = settings.gate[name]
      return [name, { on: value !== null, value: value === null ? '' : String(value) }]
    }),
  )
  return {
    roles: [...settings.review.roles],
    everyPart: settings.review.sections === null,
    sections: [...(settings.review.sections ?? [])],
    gate: {
      photo_min_px: gate.photo_min_px ?? { on: false, value: '' },
      tagline_max: gate.tagline_max ?? { on: false, value: '' },
      biography_max: gate.biography_max ?? { on: false, value: '' },
      topics_min: gate.topics_min ?? { on: false, value: '' },
    },
  }
}

const NUMBER = /^-?\d+(\.\d+)?$/

/** A typed limit as the API takes it (the server judges its range and that it is whole). */
function limitOf(field: { on: boolean; value: string }): number | null {
  return field.on ? Number(field.value.trim()) : null
}

/** What is not a number at all cannot be sent (JSON has no NaN): said beside the field, as the server would. */
export function unreadableLimits(form: Form): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const { name } of LIMITS) {
    const field = form.gate[name]
    if (field.on && !NUMBER.test(field.value.trim()))
      fields[name] = 'must be an integer from 0 to 1000000, or unticked'
  }
  return fields
}

function bodyOf(form: Form): Settings {
  return {
    review: { roles: form.roles, sections: form.everyPart ? null : form.sections },
    gate: {
      photo_min_px: limitOf(form.gate.photo_min_px),
      tagline_max: limitOf(form.gate.tagline_max),
      biography_max: limitOf(form.gate.biography_max),
      topics_min: limitOf(form.gate.topics_min),
    },
  }
}

const toggled = <T,>(list: readonly T[], item: T, on: boolean): T[] =>
  on ? [...list.filter((other) => other !== item), item] : list.filter((other) => other !== item)

/**
 * The editorial workflow's settings (`GET|PUT .../workflow`, CONTRACT §21): whose changes, and which parts
 * of a profile, need review; and the publish gate a profile must meet to be published.
 */
export function WorkflowScreen() {
  const me = useSignedIn()
  const settings = useQuery({
    queryKey: ['workflow', me.organization],
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/workflow', {
          params: { path: { corporation: me.organization } },
        }),
      ),
  })
  return (
    <div className="workflow">
      <h1>Editorial workflow</h1>
      {settings.isPending ? <Loading what="the workflow settings" /> : null}
      {settings.isError ? <ErrorNote error={settings.error} retry={() => void settings.refetch()} /> : null}
      {settings.data ? (
        <UnsavedChangesGuard>
          <WorkflowForm settings={settings.data} />
        </UnsavedChangesGuard>
      ) : null}
    </div>
  )
}

function WorkflowForm({ settings }: { settings: Settings }) {
  const me = useSignedIn()
  const queries = useQueryClient()
  const [form, setForm] = useState(() => formOf(settings))
  const { busy, failure, notice, run, reset } = useAction()
  useEffect(() => setForm(formOf(settings)), [settings])
  useDirty(JSON.stringify(form) !== JSON.stringify(formOf(settings)))
  // The server names each field (`gate.tagline_max`, `review.roles.1`): each shows beside its own.
  const errors = failure instanceof ApiFailure ? fieldErrorsOf(failure) : {}

  const change = (next: Partial<Form>) => {
    reset()
    setForm((current) => ({ ...current, ...next }))
  }
  const changeLimit = (name: Limit, next: Partial<{ on: boolean; value: string }>) =>
    change({ gate: { ...form.gate, [name]: { ...form.gate[name], ...next } } })

  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    void run(async () => {
      const unreadable = unreadableLimits(form)
      if (Object.keys(unreadable).length > 0)
        throw new ApiFailure('Some limits are not numbers.', 400, 'validation_failed', unreadable)
      const body = bodyOf(form)
      dataOf(
        await api.PUT('/v2/organization/{corporation}/workflow', {
          params: { path: { corporation: me.organization } },
          body,
        }),
      )
      queries.setQueryData(['workflow', me.organization], body)
      await queries.invalidateQueries({ queryKey: ['profile', me.organization] })
      return 'Saved.'
    })
  }

  return (
    <form onSubmit={save} noValidate aria-label="Editorial workflow settings">
      <fieldset className="card">
        <legend>Publish gate</legend>
        <p className="hint">
          What a profile must meet to be published; publishing one that does not is refused, naming what is
          missing. A limit left unticked is not checked.
        </p>
        {LIMITS.map(({ name, label, unit }) => {
          const error = errors[`gate.${name}`]
          return (
            <div key={name} className="field gate-limit">
              <label className="field-flag">
                <input
                  type="checkbox"
                  checked={form.gate[name].on}
                  onChange={(event) => changeLimit(name, { on: event.target.checked })}
                />{' '}
                {label}
              </label>
              {form.gate[name].on ? (
                <span className="limit-value">
                  <input
                    id={`limit-${name}`}
                    inputMode="numeric"
                    aria-label={`${label} (${unit})`}
                    value={form.gate[name].value}
                    onChange={(event) => changeLimit(name, { value: event.target.value })}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={error ? `limit-${name}-error` : undefined}
                  />{' '}
                  {unit}
                </span>
              ) : null}
              {error ? (
                <p id={`limit-${name}-error`} className="field-error">
                  {error}
                </p>
              ) : null}
            </div>
          )
        })}
      </fieldset>
      <fieldset className="card">
        <legend>Review</legend>
        <p className="hint">
          The roles whose changes need review before they are published, and the parts of a profile it applies
          to. Such a change waits as a draft until an editor, admin or owner approves it.
        </p>
        <fieldset className="choices">
          <legend>Changes by these roles need review</legend>
          <div className="part-choices">
            {ROLES.map((role) => (
              <label key={role} className="field-flag">
                <input
                  type="checkbox"
                  checked={form.roles.includes(role)}
                  onChange={(event) => change({ roles: toggled(form.roles, role, event.target.checked) })}
                />{' '}
                {role.charAt(0).toUpperCase() + role.slice(1)}
              </label>
            ))}
          </div>
          {errors['review.roles'] ? <p className="field-error">{errors['review.roles']}</p> : null}
        </fieldset>
        <fieldset className="choices">
          <legend>Parts of a profile</legend>
          <label className="field-flag">
            <input
              type="radio"
              name="review-parts"
              checked={form.everyPart}
              onChange={() => change({ everyPart: true })}
            />{' '}
            Every part
          </label>
          <label className="field-flag">
            <input
              type="radio"
              name="review-parts"
              checked={!form.everyPart}
              onChange={() => change({ everyPart: false })}
            />{' '}
            Only these parts
          </label>
          {form.everyPart ? null : (
            <div className="part-choices">
              {SECTIONS.map((part) => (
                <label key={part} className="field-flag">
                  <input
                    type="checkbox"
                    checked={form.sections.includes(part)}
                    onChange={(event) =>
                      change({ sections: toggled(form.sections, part, event.target.checked) })
                    }
                  />{' '}
                  {partLabel(part)}
                </label>
              ))}
            </div>
          )}
          {errors['review.sections'] ? <p className="field-error">{errors['review.sections']}</p> : null}
        </fieldset>
      </fieldset>
      {failure && Object.keys(errors).length === 0 ? (
        <p className="form-error" role="alert">
          {messageOf(failure)}
        </p>
      ) : null}
      {Object.keys(errors).length > 0 ? (
        <p className="form-error" role="alert">
          Nothing was saved: correct the fields marked.
        </p>
      ) : null}
      {notice ? <Notice>{notice}</Notice> : null}
      <button type="submit" className="primary" disabled={busy}>
        Save
      </button>
    </form>
  )
}

/**
 * The failure's message per field, under the form's names: a limit (`gate.tagline_max`), or a review
 * list. ApiFailure keeps each field's last word (`tagline_max`; `1` of `review.roles.1`); the review's
 * choices come from the server's own lists, so an item refused is a role.
 */
export function fieldErrorsOf(failure: ApiFailure): Record<string, string> {
  const errors: Record<string, string> = {}
  for (const [field, message] of Object.entries(failure.fields)) {
    if (LIMITS.some((limit) => limit.name === field)) errors[`gate.${field}`] = message
    else if (field === 'roles' || /^\d+$/.test(field)) errors['review.roles'] ??= message
    else if (field === 'sections') errors['review.sections'] = message
  }
  return errors
}
