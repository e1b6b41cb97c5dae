import { type FormEvent, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { bodyOf, type FormValues, fieldsOf, valuesOf } from '../forms/model.ts'
import { SchemaForm } from '../forms/SchemaForm.tsx'
import { SSO_SCHEMA } from '../schemas.ts'

type Mapping = components['schemas']['SsoRoleMapping']

/** One pair's fields, generated from the `role_mapping` items of `SsoSettingsUpdate`, with short labels. */
const LABELS: Readonly<Record<string, string>> = { group: 'Group', role: 'Role' }
const fields = fieldsOf(SSO_SCHEMA.properties?.role_mapping?.items ?? {}).map((field) => ({
  ...field,
  label: LABELS[field.name] ?? field.label,
  hint: field.name === 'group' ? 'The group claim’s value (OIDC) or a group attribute’s (SAML), exactly' : '',
}))

/** Groups of the identity provider to roles: pairs added and removed; each change writes the whole list. */
export function RoleMappings({
  mappings,
  save,
}: {
  mappings: readonly Mapping[]
  save: (body: { role_mapping: Mapping[] }) => Promise<void>
}) {
  const [values, setValues] = useState<FormValues>(() => valuesOf(fields))
  const [failure, setFailure] = useState<unknown>()
  const write = async (next: Mapping[]) => {
    setFailure(undefined)
    try {
      await save({ role_mapping: next })
      return true
    } catch (error) {
      setFailure(error)
      return false
    }
  }
  const add = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const body = bodyOf(fields, values, 'create')
    const pair = { group: String(body.group ?? ''), role: String(body.role ?? '') }
    // The server checks the pair against the same schema the fields come from.
    if (await write([...mappings, pair as Mapping])) setValues(valuesOf(fields))
  }
  return (
    <div>
      {mappings.length === 0 ? (
        <p className="empty">No group is mapped: new people get the role below.</p>
      ) : null}
      <ul className="chips" aria-label="Groups and their roles">
        {mappings.map((mapping) => (
          <li key={mapping.group} className="chip">
            {mapping.group} → {mapping.role}
            <button
              type="button"
              aria-label={`Remove ${mapping.group}`}
              onClick={() => void write(mappings.filter((other) => other.group !== mapping.group))}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <SchemaForm
        onSubmit={add}
        aria-label="Map a group to a role"
        fields={fields}
        values={values}
        onValues={setValues}
        failure={failure}
        actions={<button type="submit">Map the group</button>}
      />
    </div>
  )
}
