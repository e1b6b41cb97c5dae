import { type ReactNode, useEffect, useId, useRef, useState } from 'react'

/**
 * A secret the server answers once (a client secret, a webhook's signing secret): marked as such, with a
 * copy button. It lives only in the state of the screen that asked for it, never in the query cache,
 * so it is gone once the person leaves the screen or closes the box.
 */
export function SecretOnce({
  title,
  label,
  secret,
  children,
  onClose,
}: {
  title: string
  /** The secret's field label ("Client secret"). */
  label: string
  secret: string
  /** What else the person needs with it (the client id). */
  children?: ReactNode
  onClose: () => void
}) {
  const id = useId()
  const [copied, setCopied] = useState<'' | 'copied' | 'failed'>('')
  const field = useRef<HTMLInputElement>(null)
  // The box appears after a click elsewhere: the secret takes the focus, so that it is announced and selected.
  useEffect(() => field.current?.focus(), [])
  // Without a secure context (plain HTTP under a real name) there is no clipboard: that is a refusal too.
  const copy = () =>
    Promise.resolve()
      .then(() => navigator.clipboard.writeText(secret))
      .then(
        () => setCopied('copied'),
        () => setCopied('failed'),
      )
  return (
    <section className="secret-once" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      <p id={`${id}-warning`} className="secret-warning">
        <strong>Copy it now: it will not be shown again.</strong> Only a hash of it is stored, so nobody can
        read it later; a lost secret means a new one.
      </p>
      {children}
      <div className="field">
        <label htmlFor={`${id}-secret`}>{label}</label>
        <input
          id={`${id}-secret`}
          ref={field}
          aria-describedby={`${id}-warning`}
          className="secret-value"
          readOnly
          value={secret}
          onFocus={(event) => event.target.select()}
        />
      </div>
      <div className="actions">
        <button type="button" className="primary" onClick={() => void copy()}>
          Copy {label.toLowerCase()}
        </button>
        <button type="button" onClick={onClose}>
          I have stored it
        </button>
      </div>
      <p role="status" className={copied === 'failed' ? 'form-error' : 'notice'}>
        {copied === 'copied' ? 'Copied to the clipboard.' : null}
        {copied === 'failed' ? 'The browser refused to copy: select the text above and copy it.' : null}
      </p>
    </section>
  )
}
