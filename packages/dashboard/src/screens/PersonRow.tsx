import { Link } from '@tanstack/react-router'
import { type FormEvent, useEffect, useId, useMemo, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { ApiFailure, dataOf, messageOf } from '../api/failure.ts'
import { type Me, useSessionActions, useSignedIn } from '../api/session.ts'
import { bodyOf, type FormValues, valuesOf } from '../forms/model.ts'
import { SchemaFields } from '../forms/SchemaFields.tsx'
import { ExpertPicker } from '../ui/ExpertPicker.tsx'
import { Notice } from '../ui/parts.tsx'
import {
  ADMINISTERING,
  day,
  editFields,
  INVITATION_OUTCOMES,
  type Person,
  ROLE_NAMES,
  type Role,
  when,
  withRoleHint,
} from './people-model.ts'

interface RowProps {
  person: Person
  onChanged: () => unknown
  onRemoved: (person: Person) => unknown
}

/** A person of the organization: role, whether they can sign in, their invitation, and their editor. */
export function PersonRow({ person, me, ...actions }: RowProps & { me: Me }) {
  const self = person.id === me.id
  return (
    <li className="person-row">
      <div className="person-head">
        <div>
          <p className="strong">
            {person.name}
            {self ? <span className="muted"> (you)</span> : null}
          </p>
          <p className="muted person-email">{person.email}</p>
        </div>
        <div className="badges">
          <span className="badge">{ROLE_NAMES[person.role]}</span>
          <AccessBadge person={person} />
        </div>
      </div>
      <p className="muted">
        {person.expert ? (
          <>
            Linked to the expert{' '}
            <Link to="/experts/$username" params={{ username: person.expert }}>
              {person.expert}
            </Link>
            .{' '}
          </>
        ) : null}
        Added {day(person.created_at)}.
      </p>
      {person.has_password ? null : <Invitation person={person} onSent={actions.onChanged} />}
      <details>
        <summary className="person-summary">Change or remove {person.name}</summary>
        <PersonEditor person={person} self={self} {...actions} />
      </details>
    </li>
  )
}

/** Whether the person can sign in yet: a password, a pending invitation, or one that expired. */
function AccessBadge({ person }: { person: Person }) {
  if (person.has_password) return <span className="badge ok">Password set</span>
  const ends = person.invitation_expires_at
  if (ends === null) return <span className="badge">No password</span>
  return ends * 1000 > Date.now() ? (
    <span className="badge warn">Invitation pending</span>
  ) : (
    <span className="badge warn">Invitation expired</span>
  )
}

/** A person without a password: when their link ends, and a new one sent on request. */
function Invitation({ person, onSent }: { person: Person; onSent: () => unknown }) {
  const me = useSignedIn()
  const [failure, setFailure] = useState<unknown>()
  const [notice, setNotice] = useState('')
  const [busy, setBusy] = useState(false)
  const ends = person.invitation_expires_at
  const send = async () => {
    setBusy(true)
    setFailure(undefined)
    setNotice('')
    try {
      const sent = dataOf(
        await api.POST('/v2/organization/{corporation}/people/{id}/invitation', {
          params: { path: { corporation: me.organization, id: person.id } },
        }),
      )
      setNotice(`A new invitation: ${INVITATION_OUTCOMES[sent.invitation]} The earlier link no longer works.`)
      await onSent()
    } catch (error) {
      setFailure(error)
    } finally {
      setBusy(false)
    }
  }
  return (
    <div className="invitation">
      <p className="muted">
        {ends === null
          ? 'No invitation link: they sign in with single sign-on, or need an invitation.'
          : ends * 1000 > Date.now()
            ? `The invitation link works until ${when(ends)}.`
            : `The invitation expired on ${when(ends)}.`}
      </p>
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => void send()}>
          Send {person.name} a new invitation
        </button>
      </div>
      {failure ? (
        <p className="form-error" role="alert">
          {messageOf(failure)}
        </p>
      ) : null}
      {notice ? <Notice>{notice}</Notice> : null}
    </div>
  )
}

function PersonEditor({ person, self, onChanged, onRemoved }: RowProps & { self: boolean }) {
  const me = useSignedIn()
  const { recheck } = useSessionActions()
  const original = useMemo(() => valuesOf(editFields, person), [person])
  const [values, setValues] = useState<FormValues>(original)
  const [expert, setExpert] = useState(person.expert ?? '')
  const [failure, setFailure] = useState<unknown>()
  const [notice, setNotice] = useState('')
  const [busy, setBusy] = useState(false)
  const headingId = useId()
  // A new read of the person (after a save) becomes the form's state.
  useEffect(() => {
    setValues(original)
    setExpert(person.expert ?? '')
  }, [original, person.expert])
  const path = { params: { path: { corporation: me.organization, id: person.id } } }
  const linksExpert = values.role === 'expert'
  const changes = {
    ...bodyOf(editFields, values, 'update', original),
    ...(linksExpert && expert !== (person.expert ?? '') ? { expert } : {}),
  }
  const dirty = Object.keys(changes).length > 0
  // A person who gives up their own admin role loses this screen (and removal, the session) at once.
  const losesAccess = self && !ADMINISTERING.includes(String(values.role))

  const run = async (action: () => Promise<unknown>, done: () => unknown) => {
    setBusy(true)
    setFailure(undefined)
    setNotice('')
    try {
      await action()
      await done()
      if (self) await recheck()
    } catch (error) {
      setFailure(error)
    } finally {
      setBusy(false)
    }
  }
  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (
      losesAccess &&
      !window.confirm(
        `You are making yourself ${ROLE_NAMES[values.role as Role] ?? values.role}: you lose People and the settings at once, and only an owner or admin can give them back. Continue?`,
      )
    )
      return
    void run(
      async () => {
        dataOf(
          await api.PUT('/v2/organization/{corporation}/people/{id}', {
            ...path,
            // Checked by the server against the schema the fields come from.
            body: changes as components['schemas']['PersonUpdate'],
          }),
        )
      },
      async () => {
        setNotice('Saved.')
        await onChanged()
      },
    )
  }
  const remove = () => {
    const question = self
      ? `Remove yourself (${person.email})? You are signed out at once and cannot sign in again.`
      : `Remove ${person.name} (${person.email})? They are signed out at once and can no longer sign in.`
    if (!window.confirm(question)) return
    void run(
      async () => {
        dataOf(await api.DELETE('/v2/organization/{corporation}/people/{id}', path))
      },
      () => onRemoved(person),
    )
  }
  const errors = failure instanceof ApiFailure ? failure.fields : {}
  return (
    <form onSubmit={save} aria-labelledby={headingId} noValidate>
      <h3 id={headingId} className="visually-hidden">
        {person.name}
      </h3>
      <div className="form-grid">
        <SchemaFields
          fields={withRoleHint(editFields, values.role)}
          values={values}
          onChange={(name, value) => setValues((previous) => ({ ...previous, [name]: value }))}
          errors={errors}
        />
      </div>
      {linksExpert ? (
        <ExpertPicker label="Linked expert" value={expert} onChange={setExpert} error={errors.expert} />
      ) : null}
      {losesAccess ? (
        <p className="form-warning">You are changing your own role: you will lose this screen at once.</p>
      ) : null}
      {failure ? (
        <p className="form-error" role="alert">
          {messageOf(failure)}
        </p>
      ) : null}
      {notice && !dirty ? <Notice>{notice}</Notice> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || !dirty}>
          Save
        </button>
        {dirty ? (
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              setValues(original)
              setExpert(person.expert ?? '')
            }}
          >
            Undo changes
          </button>
        ) : null}
        <button type="button" className="danger" disabled={busy} onClick={remove}>
          {self ? 'Remove me' : `Remove ${person.name}`}
        </button>
      </div>
    </form>
  )
}
