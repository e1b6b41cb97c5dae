import { countryList, subdivisionList } from './regions.ts'

interface Props {
  id: string
  name: string
  kind: 'country' | 'subdivision'
  /** For a subdivision: the country chosen in the same form. */
  country: string
  value: string
  required: boolean
  describedBy: string | undefined
  invalid: boolean
  onChange: (value: string) => void
}

/** A country, or a subdivision of the form's country, chosen by name and stored as its ISO code. */
export default function RegionSelect({
  id,
  name,
  kind,
  country,
  value,
  required,
  describedBy,
  invalid,
  onChange,
}: Props) {
  const choices = kind === 'country' ? countryList() : country ? subdivisionList(country) : []
  const current = value.toUpperCase()
  // A stored code outside the list (data from before the list changed) stays shown rather than lost.
  const unknown = current !== '' && !choices.some((choice) => choice.code === current)
  const empty =
    kind === 'subdivision' && !country
      ? 'Choose a country first'
      : choices.length === 0
        ? 'None for this country'
        : '—'
  return (
    <select
      id={id}
      name={name}
      required={required}
      aria-invalid={invalid || undefined}
      aria-describedby={describedBy}
      value={current}
      disabled={kind === 'subdivision' && choices.length === 0 && !unknown}
      onChange={(event) => onChange(event.target.value)}
    >
      <option value="">{empty}</option>
      {unknown ? <option value={current}>{current}</option> : null}
      {choices.map((choice) => (
        <option key={choice.code} value={choice.code}>
          {choice.name}
        </option>
      ))}
    </select>
  )
}
