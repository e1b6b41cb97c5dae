import { Link } from '@tanstack/react-router'
import { type FormEvent, useEffect, useId, useMemo, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { type Me, useSessionActions, useSignedIn } from '../api/session.ts'
import { bodyOf, type FormValues, valuesOf } from '../forms/model.ts'
import { SchemaFields } from '../forms/SchemaFields.tsx'
import { FailureNote, useAction } from '../ui/action.tsx'
import { ExpertPicker } from '../ui/ExpertPicker.tsx'
import { Notice } from '../ui/parts.tsx'
import {
  ADMINISTERING,
  day,
  editFields,
  invitationOutcome,
  invitationState,
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
  const state = invitationState(person)
  if (state === 'accepted') return <span className="badge ok">Password set</span>
  if (state === 'none') return <span className="badge">No password</span>
  return (
    <span className="badge warn">{state === 'pending' ? 'Invitation pending' : 'Invitation expired'}</span>
  )
}

/** A person without a password: when their link ends, and a new one sent on request. */
function Invitation({ person, onSent }: { person: Person; onSent: () => unknown }) {
  const me = useSignedIn()
  const { busy, failure, notice, run } = useAction()
  const state = invitationState(person)
  const ends = when(person.invitation_expires_at ?? 0)
  const send = () =>
    run(async () => {
      const sent = dataOf(
        await api.POST('/v2/organization/{corporation}/people/{id}/invitation', {
          params: { path: { corporation: me.organization, id: person.id } },
        }),
      )
      await onSent()
      return `The earlier link no longer works. ${invitationOutcome(sent.invitation, person.email)}`
    })
  return (
    <div className="invitation">
      <p className="muted">
        {state === 'pending'
          ? `The invitation link works until ${ends}.`
          : state === 'expired'
            ? `The invitation expired on ${ends}.`
            : 'No invitation link: they sign in with single sign-on, or need an invitation.'}
      </p>
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => void send()}>
          Send {person.name} a new invitation
        </button>
      </div>
      <FailureNote failure={failure} />
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
  const { busy, failure, notice, errors, run } = useAction()
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

  /** After their own change or removal the session is read again: the menus (or the sign-in) follow. */
  const refreshSelf = () => (self ? recheck() : undefined)
  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (
      losesAccess &&
      !window.confirm(
        `You are making yourself ${ROLE_NAMES[values.role as Role] ?? values.role}: you lose People and the settings at once, and only an owner or admin can give them back. Continue?`,
      )
    )
      return
    void run(async () => {
      dataOf(
        await api.PUT('/v2/organization/{corporation}/people/{id}', {
          ...path,
          // Checked by the server against the schema the fields come from.
          body: changes as components['schemas']['PersonUpdate'],
        }),
      )
      await onChanged()
      await refreshSelf()
      return 'Saved.'
    })
  }
  const remove = () => {
    const question = self
      ? `Remove yourself (${person.email})? You are signed out at once and cannot sign in again.`
      : `Remove ${person.name} (${person.email})? They are signed out at once and can no longer sign in.`
    if (!window.confirm(question)) return
    void run(async () => {
      dataOf(await api.DELETE('/v2/organization/{corporation}/people/{id}', path))
      await onRemoved(person)
      await refreshSelf()
      return undefined
    })
  }
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
      <FailureNote failure={failure} />
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
