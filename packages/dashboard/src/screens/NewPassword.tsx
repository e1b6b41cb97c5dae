/** The rule the server checks (src/people/passwords.ts), said before the person types. */
export const PASSWORD_RULE = 'At least 12 characters, not a common password, not your email address.'

/** Why the two typed passwords cannot be sent, or undefined when they match. */
export function confirmationProblem(form: FormData, name: string, confirmName: string): string | undefined {
  return String(form.get(name)) === String(form.get(confirmName))
    ? undefined
    : 'does not match the password above: type the same password twice'
}

/**
 * A new password typed twice: the field the server checks (`name`) with the rule as its hint and the
 * server's own words when it refuses one, and a confirmation checked before anything is sent.
 */
export function NewPasswordFields({
  id,
  name,
  label,
  error,
  confirmError,
}: {
  id: string
  name: string
  label: string
  /** The server's reason for refusing the password (which rule failed), without the field's name. */
  error?: string | undefined
  confirmError?: string | undefined
}) {
  const describedBy = [`${id}-hint`, error ? `${id}-error` : ''].filter(Boolean).join(' ')
  return (
    <>
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          name={name}
          type="password"
          autoComplete="new-password"
          required
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
        />
        <p id={`${id}-hint`} className="hint">
          {PASSWORD_RULE}
        </p>
        {error ? (
          <p id={`${id}-error`} className="field-error">
            The password {error}.
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor={`${id}-confirm`}>Confirm the password</label>
        <input
          id={`${id}-confirm`}
          name={`${name}-confirm`}
          type="password"
          autoComplete="new-password"
          required
          aria-invalid={confirmError ? true : undefined}
          aria-describedby={confirmError ? `${id}-confirm-error` : undefined}
        />
        {confirmError ? (
          <p id={`${id}-confirm-error`} className="field-error">
            The confirmation {confirmError}.
          </p>
        ) : null}
      </div>
    </>
  )
}
