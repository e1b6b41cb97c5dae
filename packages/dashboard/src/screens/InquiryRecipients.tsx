import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { type FormEvent, useEffect, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf, messageOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { UnsavedChangesGuard, useDirty } from '../forms/dirty.tsx'
import generated from '../generated/schemas.json'
import { ErrorNote, Loading, Notice } from '../ui/parts.tsx'
import { KIND_CHOICES } from './inquiry-display.ts'

type Settings = components['schemas']['NotificationSettings']
type Kind = keyof Settings
type Flag = 'expert' | 'assistant' | 'desk'
const FLAGS: readonly Flag[] = ['expert', 'assistant', 'desk']

/** Labels and hints of the settings, from the server's schema (`title`, `description`). */
const DISPLAY: Readonly<Record<string, { title: string; description?: string } | undefined>> =
  generated.notifications.properties
const labelOf = (name: string) => DISPLAY[name]?.title ?? name
/** A switch's description says what 1 means ("1: the expert ... is emailed"): the hint is the rest. */
const hintOf = (name: string) => (DISPLAY[name]?.description ?? '').replace(/^1: /, '')

interface KindForm {
  /** The desk's addresses, one a line. */
  recipients: string
  expert: boolean
  assistant: boolean
  desk: boolean
}

const KINDS = KIND_CHOICES as readonly { const: Kind; title: string }[]

function formOf(settings: Settings): Record<Kind, KindForm> {
  return Object.fromEntries(
    KINDS.map(({ const: kind }) => {
      const setting = settings[kind]
      return [
        kind,
        {
          recipients: setting.recipients.join('\n'),
          expert: setting.expert === 1,
          assistant: setting.assistant === 1,
          desk: setting.desk === 1,
        },
      ]
    }),
  ) as Record<Kind, KindForm>
}

const addresses = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((address) => address.trim())
    .filter(Boolean)

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/

/**
 * Who is emailed about each kind of inquiry (`GET|PUT .../notifications`, CONTRACT §17): the desk's
 * addresses, and whether the expert, the expert's assistant and the desk get each kind.
 */
export function InquiryRecipientsScreen() {
  const me = useSignedIn()
  const settings = useQuery({
    queryKey: ['notifications', me.organization],
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/notifications', {
          params: { path: { corporation: me.organization } },
        }),
      ),
  })
  return (
    <div className="inquiry-recipients">
      <h1>Who is emailed about inquiries</h1>
      <p className="muted">
        For each kind of inquiry: the desk’s addresses, and who else gets the email. Inquiries sent to the
        organization itself always go to the desk. Changes apply to inquiries received afterwards. Inquiries
        are assigned to people in <Link to="/inquiries">Inquiries</Link>.
      </p>
      <ul className="recipient-legend">
        {FLAGS.map((flag) => (
          <li key={flag}>
            <span className="strong">{labelOf(flag)}</span>: {hintOf(flag)}
          </li>
        ))}
      </ul>
      {settings.isPending ? <Loading what="the notification settings" /> : null}
      {settings.isError ? <ErrorNote error={settings.error} retry={() => void settings.refetch()} /> : null}
      {settings.data ? (
        <UnsavedChangesGuard>
          <RecipientsForm settings={settings.data} />
        </UnsavedChangesGuard>
      ) : null}
    </div>
  )
}

function RecipientsForm({ settings }: { settings: Settings }) {
  const me = useSignedIn()
  const queries = useQueryClient()
  const [form, setForm] = useState(() => formOf(settings))
  const [failure, setFailure] = useState<unknown>()
  const [notice, setNotice] = useState('')
  useEffect(() => setForm(formOf(settings)), [settings])
  useDirty(JSON.stringify(form) !== JSON.stringify(formOf(settings)))

  const change = (kind: Kind, part: Partial<KindForm>) => {
    setNotice('')
    setForm((current) => ({ ...current, [kind]: { ...current[kind], ...part } }))
  }

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setFailure(undefined)
    setNotice('')
    for (const { const: kind, title } of KINDS) {
      const wrong = addresses(form[kind].recipients).find((address) => !EMAIL.test(address))
      if (wrong) {
        setFailure(new Error(`“${wrong}” (${title} inquiries) is not an email address.`))
        return
      }
    }
    const body = Object.fromEntries(
      KINDS.map(({ const: kind }) => {
        const values = form[kind]
        return [
          kind,
          {
            recipients: addresses(values.recipients),
            expert: values.expert ? 1 : 0,
            assistant: values.assistant ? 1 : 0,
            desk: values.desk ? 1 : 0,
          },
        ]
      }),
    ) as components['schemas']['NotificationSettingsUpdate']
    try {
      const saved = dataOf(
        await api.PUT('/v2/organization/{corporation}/notifications', {
          params: { path: { corporation: me.organization } },
          body,
        }),
      )
      queries.setQueryData(['notifications', me.organization], saved)
      setNotice('Saved. New inquiries are emailed as shown.')
    } catch (error) {
      setFailure(error)
    }
  }

  return (
    <form onSubmit={save} noValidate aria-label="Inquiry email recipients">
      <div className="recipient-kinds">
        {KINDS.map(({ const: kind, title }) => (
          <fieldset key={kind} className="card recipient-kind">
            <legend>{title} inquiries</legend>
            <div className="field">
              <label htmlFor={`recipients-${kind}`}>{labelOf('recipients')}</label>
              <textarea
                id={`recipients-${kind}`}
                rows={2}
                value={form[kind].recipients}
                onChange={(event) => change(kind, { recipients: event.target.value })}
                aria-describedby="recipients-hint"
              />
            </div>
            {FLAGS.map((flag) => (
              <label key={flag} className="field-flag">
                <input
                  type="checkbox"
                  checked={form[kind][flag]}
                  onChange={(event) => change(kind, { [flag]: event.target.checked })}
                />{' '}
                {labelOf(flag)}
              </label>
            ))}
          </fieldset>
        ))}
      </div>
      <p id="recipients-hint" className="hint">
        Desk addresses: one a line.
      </p>
      {failure ? (
        <p className="form-error" role="alert">
          {messageOf(failure)}
        </p>
      ) : null}
      {notice ? <Notice>{notice}</Notice> : null}
      <button type="submit" className="primary">
        Save
      </button>
    </form>
  )
}
