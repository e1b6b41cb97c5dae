import { lazy, Suspense, useId } from 'react'
import type { FieldSpec, FormValues } from './model.ts'

/** TipTap is large: it loads with the first HTML field shown, not with the app. */
const RichText = lazy(() => import('./RichText.tsx'))
/** The ISO 3166 names are large too: they load with the first location field. */
const RegionSelect = lazy(() => import('./RegionSelect.tsx'))

/** The IANA zones the browser knows, sorted, with the stored one among them even if this browser lacks it. */
function timeZones(current: string): string[] {
  const known = [...Intl.supportedValuesOf('timeZone'), 'UTC']
  return [...new Set(current ? [...known, current] : known)].sort()
}

interface Props {
  fields: readonly FieldSpec[]
  values: FormValues
  onChange: (name: string, value: string | boolean) => void
  /** The server's message per field. */
  errors?: Readonly<Record<string, string>>
}

const INPUT_TYPES: Partial<Record<FieldSpec['kind'], string>> = {
  email: 'email',
  url: 'url',
  date: 'date',
  datetime: 'datetime-local',
  integer: 'number',
  year: 'number',
  number: 'number',
}

/** The inputs of a generated form: one labelled control per field, its hint and the server's message beside it. */
export function SchemaFields({ fields, values, onChange, errors = {} }: Props) {
  const prefix = useId()
  return (
    <>
      {fields.map((field) => {
        const id = `${prefix}-${field.name}`
        const error = errors[field.name]
        const described = [field.hint ? `${id}-hint` : '', error ? `${id}-error` : '']
          .filter(Boolean)
          .join(' ')
        const common = {
          id,
          name: field.name,
          'aria-invalid': error ? true : undefined,
          'aria-describedby': described || undefined,
          required: field.required,
        }
        const value = values[field.name]
        const text = typeof value === 'string' ? value : ''
        let control: React.ReactNode
        if (field.kind === 'flag') {
          control = (
            <input
              {...common}
              required={false}
              type="checkbox"
              checked={value === true}
              onChange={(event) => onChange(field.name, event.target.checked)}
            />
          )
        } else if (field.kind === 'choice') {
          control = (
            <select {...common} value={text} onChange={(event) => onChange(field.name, event.target.value)}>
              <option value="">{field.required ? 'Choose…' : '—'}</option>
              {field.options.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          )
        } else if (field.kind === 'time-zone') {
          control = (
            <select {...common} value={text} onChange={(event) => onChange(field.name, event.target.value)}>
              <option value="">—</option>
              {timeZones(text).map((zone) => (
                <option key={zone} value={zone}>
                  {zone.replaceAll('_', ' ')}
                </option>
              ))}
            </select>
          )
        } else if (field.kind === 'country' || field.kind === 'subdivision') {
          const countryField = fields.find((other) => other.kind === 'country')
          const country = countryField ? values[countryField.name] : undefined
          control = (
            <Suspense fallback={<input {...common} value={text} readOnly />}>
              <RegionSelect
                id={id}
                name={field.name}
                kind={field.kind}
                country={typeof country === 'string' ? country : ''}
                value={text}
                required={field.required}
                describedBy={described || undefined}
                invalid={error !== undefined}
                onChange={(chosen) => {
                  onChange(field.name, chosen)
                  // Another country's subdivision would be refused: the state starts over with the country.
                  if (field.kind === 'country') {
                    const state = fields.find((other) => other.kind === 'subdivision')
                    if (state && chosen !== text) onChange(state.name, '')
                  }
                }}
              />
            </Suspense>
          )
        } else if (field.kind === 'html') {
          control = (
            <Suspense fallback={<p className="muted">Loading the editor…</p>}>
              <RichText
                id={id}
                labelId={`${id}-label`}
                describedBy={described || undefined}
                value={text}
                onChange={(html) => onChange(field.name, html)}
              />
            </Suspense>
          )
        } else if (field.kind === 'longtext' || field.kind === 'embed') {
          control = (
            <textarea
              {...common}
              rows={4}
              maxLength={field.maxLength}
              value={text}
              onChange={(event) => onChange(field.name, event.target.value)}
            />
          )
        } else {
          control = (
            <input
              {...common}
              type={INPUT_TYPES[field.kind] ?? 'text'}
              step={field.kind === 'number' ? 'any' : undefined}
              maxLength={field.maxLength}
              value={text}
              onChange={(event) => onChange(field.name, event.target.value)}
            />
          )
        }
        return (
          <div key={field.name} className={`field field-${field.kind}`}>
            <label id={`${id}-label`} htmlFor={id}>
              {field.label}
              {field.required ? <span aria-hidden="true"> *</span> : null}
            </label>
            {control}
            {field.hint ? (
              <p id={`${id}-hint`} className="hint">
                {field.hint}
              </p>
            ) : null}
            {error ? (
              <p id={`${id}-error`} className="field-error">
                {field.label} {error}
              </p>
            ) : null}
          </div>
        )
      })}
    </>
  )
}
