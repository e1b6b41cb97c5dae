import { useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { type Me, useSignedIn } from '../api/session.ts'
import { bodyOf, type FormValues, valuesOf } from '../forms/model.ts'
import { SchemaFields } from '../forms/SchemaFields.tsx'
import { FailureNote, useAction } from '../ui/action.tsx'
import { ExpertPicker } from '../ui/ExpertPicker.tsx'
import { Empty, ErrorNote, Loading, Notice } from '../ui/parts.tsx'
import { PersonRow } from './PersonRow.tsx'
import { invitationOutcome, inviteFields, type Person, ROLE_HINTS, withRoleHint } from './people-model.ts'

/** The people who sign in to the organization (`.../people`, scope admin): invite, change, remove. */
export function PeopleScreen() {
  return <People me={useSignedIn()} />
}

function People({ me }: { me: Me }) {
  const queries = useQueryClient()
  const key = ['people', me.organization]
  const path = { params: { path: { corporation: me.organization } } }
  const people = useQuery({
    queryKey: key,
    queryFn: async () => dataOf(await api.GET('/v2/organization/{corporation}/people', path)).people,
  })
  const [notice, setNotice] = useState('')
  const reload = () => queries.invalidateQueries({ queryKey: key })
  const removed = async (person: Person) => {
    setNotice(`${person.name} (${person.email}) was removed and signed out.`)
    await reload()
  }
  return (
    <div className="people">
      <h1>People</h1>
      <p className="muted">
        Who signs in to the dashboard and what each may do. A change of role applies at once; a removed person
        is signed out at once.
      </p>
      <section className="card" aria-labelledby="invite-title">
        <h2 id="invite-title">Invite a person</h2>
        <InviteForm onInvited={reload} />
      </section>
      <section aria-labelledby="people-title">
        <h2 id="people-title">People of the organization</h2>
        {people.isPending ? <Loading what="people" /> : null}
        {people.isError ? <ErrorNote error={people.error} retry={() => void people.refetch()} /> : null}
        {people.data?.length === 0 ? (
          <Empty>Nobody signs in yet: invite the first person above.</Empty>
        ) : null}
        {notice ? <Notice>{notice}</Notice> : null}
        {people.data && people.data.length > 0 ? (
          <ul className="people-list">
            {people.data.map((person) => (
              <PersonRow key={person.id} person={person} me={me} onChanged={reload} onRemoved={removed} />
            ))}
          </ul>
        ) : null}
      </section>
    </div>
  )
}

function InviteForm({ onInvited }: { onInvited: () => unknown }) {
  const me = useSignedIn()
  const [values, setValues] = useState<FormValues>(() => valuesOf(inviteFields))
  const [expert, setExpert] = useState('')
  const { busy, failure, notice, errors, run } = useAction()
  const linksExpert = values.role === 'expert'
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    void run(async () => {
      // Checked by the server against the schema the fields come from.
      const body = {
        ...bodyOf(inviteFields, values, 'create'),
        ...(linksExpert && expert ? { expert } : {}),
      } as components['schemas']['PersonCreate']
      const invited = dataOf(
        await api.POST('/v2/organization/{corporation}/people', {
          params: { path: { corporation: me.organization } },
          body,
        }),
      )
      setValues(valuesOf(inviteFields))
      setExpert('')
      await onInvited()
      return `${invited.person.name} (${invited.person.email}) was added. ${invitationOutcome(invited.invitation, invited.person.email)}`
    })
  }
  return (
    <form onSubmit={submit} aria-label="Invite a person" noValidate>
      <ul className="role-guide" aria-label="What each role can do">
        {Object.values(ROLE_HINTS).map((hint) => (
          <li key={hint}>{hint}</li>
        ))}
      </ul>
      <div className="form-grid">
        <SchemaFields
          fields={withRoleHint(inviteFields, values.role)}
          values={values}
          onChange={(name, value) => setValues((previous) => ({ ...previous, [name]: value }))}
          errors={errors}
        />
      </div>
      {linksExpert ? (
        <ExpertPicker label="Linked expert" value={expert} onChange={setExpert} error={errors.expert} />
      ) : null}
      <FailureNote failure={failure} />
      {notice ? <Notice>{notice}</Notice> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Send the invitation
        </button>
      </div>
    </form>
  )
}
