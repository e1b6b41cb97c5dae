import type { FormHTMLAttributes, ReactNode } from 'react'
import { ApiFailure, messageOf } from '../api/failure.ts'
import type { FieldSpec, FormValues } from './model.ts'
import { SchemaFields } from './SchemaFields.tsx'

interface Props extends Omit<FormHTMLAttributes<HTMLFormElement>, 'onChange'> {
  fields: readonly FieldSpec[]
  values: FormValues
  /** Takes an update of the values, as a state setter does. */
  onValues: (update: (previous: FormValues) => FormValues) => void
  /** The last write's failure: its message under the fields, its field messages beside them. */
  failure: unknown
  /** The form's buttons. */
  actions: ReactNode
  /** What comes before the fields (a heading, a note). */
  children?: ReactNode
}

/** A generated form: its fields, the server's messages, and its actions; the caller owns the state. */
export function SchemaForm({ fields, values, onValues, failure, actions, children, ...form }: Props) {
  return (
    <form noValidate {...form}>
      {children}
      <div className="form-grid">
        <SchemaFields
          fields={fields}
          values={values}
          onChange={(name, value) => onValues((previous) => ({ ...previous, [name]: value }))}
          errors={failure instanceof ApiFailure ? failure.fields : {}}
        />
      </div>
      {failure ? (
        <p className="form-error" role="alert">
          {messageOf(failure)}
        </p>
      ) : null}
      <div className="actions">{actions}</div>
    </form>
  )
}
