import { type FormEvent, useEffect, useId, useMemo, useState } from 'react'
import { FailureNote, useAction } from '../ui/action.tsx'
import { useDirty } from './dirty.tsx'
import { bodyOf, type FieldSpec, type FormValues, valuesOf } from './model.ts'
import { SchemaFields } from './SchemaFields.tsx'

interface Props {
  /** The form's accessible name ("Education 2", "New education"). */
  title: string
  fields: readonly FieldSpec[]
  /** The stored element, when editing one. */
  element?: Readonly<Record<string, unknown>>
  /** create: send every filled field; update: only what changed. */
  mode: 'create' | 'update'
  submitLabel: string
  /**
   * A text answer is the notice to show instead of "Saved.": the stored element did not change (the
   * change was kept for review), and the form shows it as stored again.
   */
  onSave: (body: Record<string, unknown>) => Promise<unknown>
  /** The same, instead of "Removed.". */
  onRemove?: () => Promise<unknown>
  /** After a created element is saved the form empties again. */
  resetAfterSave?: boolean
}

/** One element's form: generated fields, the server's messages beside them, save and remove. */
export function ElementForm({
  title,
  fields,
  element,
  mode,
  submitLabel,
  onSave,
  onRemove,
  resetAfterSave,
}: Props) {
  // Keyed by the element's content, not its object: a reordered list reads each element into a new
  // object, and that must not throw away what the person is typing into it.
  const stored = JSON.stringify(element ?? null)
  const original = useMemo(() => valuesOf(fields, JSON.parse(stored) ?? undefined), [fields, stored])
  const [values, setValues] = useState<FormValues>(original)
  const { busy, failure, notice, errors, run } = useAction()
  const headingId = useId()
  // A new read of the element (after a save or a reload) becomes the form's state.
  useEffect(() => setValues(original), [original])

  const changes = bodyOf(fields, values, 'update', original)
  const dirty = Object.keys(changes).length > 0
  useDirty(dirty)

  const act = async (action: () => Promise<unknown>, done: string) => {
    const succeeded = await run(async () => {
      const notice = await action()
      if (typeof notice !== 'string') return done
      setValues(original)
      return notice
    })
    if (succeeded && resetAfterSave) setValues(valuesOf(fields))
  }

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    void act(() => onSave(bodyOf(fields, values, mode, original)), 'Saved.')
  }

  return (
    <form className="element-form" onSubmit={submit} aria-labelledby={headingId} noValidate>
      <h4 id={headingId} className="visually-hidden">
        {title}
      </h4>
      <div className="form-grid">
        <SchemaFields
          fields={fields}
          values={values}
          onChange={(name, value) => setValues((previous) => ({ ...previous, [name]: value }))}
          errors={errors}
        />
      </div>
      <FailureNote failure={failure} />
      {notice && !dirty ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || (mode === 'update' && !dirty)}>
          {submitLabel}
        </button>
        {mode === 'update' && dirty ? (
          <button type="button" onClick={() => setValues(original)} disabled={busy}>
            Undo changes
          </button>
        ) : null}
        {onRemove ? (
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => {
              if (window.confirm(`Remove ${title}?`)) void act(onRemove, 'Removed.')
            }}
          >
            Remove
          </button>
        ) : null}
      </div>
    </form>
  )
}
