import { useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useId, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf, messageOf } from '../api/failure.ts'
import { useDirty } from '../forms/dirty.tsx'
import { bodyOf, type FormValues, fieldsOf, valuesOf } from '../forms/model.ts'
import { SchemaFields } from '../forms/SchemaFields.tsx'
import { CLIENT_SCHEMA, SCOPE_CHOICES } from '../schemas.ts'
import { FailureNote, useAction } from '../ui/action.tsx'
import { Empty, ErrorNote, Loading, Notice, Time } from '../ui/parts.tsx'
import { SecretOnce } from '../ui/SecretOnce.tsx'

type Client = components['schemas']['Client']
type Issued = components['schemas']['ClientIssued']

/** The generated `label` field, named as people call it; the scopes get checkboxes of their own. */
const fields = fieldsOf(CLIENT_SCHEMA)
  .filter((field) => field.name !== 'scope')
  .map((field) => ({ ...field, label: 'Name', hint: `${field.label}, such as the website’s address` }))
const DEFAULT_SCOPES = SCOPE_CHOICES.filter((scope) => scope.default).map((scope) => scope.name)

const nameOf = (client: { label: string | null; client_id: string }) => client.label ?? client.client_id

/** The organization's API clients (`GET|POST .../client`, `DELETE .../client/:client_id`, scope admin). */
export function ClientsPanel({ organization }: { organization: number }) {
  const queries = useQueryClient()
  const key = ['clients', organization]
  const path = { corporation: organization }
  const clients = useQuery({
    queryKey: key,
    queryFn: async () => dataOf(await api.GET('/v2/organization/{corporation}/client', { params: { path } })),
  })
  // The secret is kept here only: it goes with this panel, and never enters the query cache.
  const [issued, setIssued] = useState<Issued>()
  const revoking = useAction()

  const create = async (body: components['schemas']['ClientCreate']) => {
    const created = dataOf(
      await api.POST('/v2/organization/{corporation}/client', { params: { path }, body }),
    )
    revoking.reset()
    setIssued(created)
    await queries.invalidateQueries({ queryKey: key })
  }
  const revoke = async (client: Client) => {
    const confirmed = window.confirm(
      `Revoke the client “${nameOf(client)}” (${client.client_id})? Every token it holds stops working at once, and it cannot be undone.`,
    )
    if (!confirmed) return
    await revoking.run(async () => {
      dataOf(
        await api.DELETE('/v2/organization/{corporation}/client/{client_id}', {
          params: { path: { ...path, client_id: client.client_id } },
        }),
      )
      if (issued?.client_id === client.client_id) setIssued(undefined)
      await queries.invalidateQueries({ queryKey: key })
      return `The client “${nameOf(client)}” is revoked.`
    })
  }

  const list = clients.data?.clients ?? []
  return (
    <section className="card" aria-labelledby="clients-title">
      <h2 id="clients-title">API clients</h2>
      <p className="muted">
        A website or another system gets a client id and a secret, exchanges them for a token at{' '}
        <code>{`${window.location.origin}/v2/oauth/token`}</code>, and can do what its scopes allow.
      </p>
      {clients.isPending ? <Loading what="the API clients" /> : null}
      {clients.isError ? <ErrorNote error={clients.error} retry={() => void clients.refetch()} /> : null}
      {clients.data && list.length === 0 ? (
        <Empty>No API client yet: create one below for a website or another system.</Empty>
      ) : null}
      {list.length > 0 ? (
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">API clients</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Client id</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {list.map((client) => (
                <tr key={client.client_id}>
                  <td>{client.label ?? <span className="muted">(no name)</span>}</td>
                  <td>
                    <code>{client.client_id}</code>
                  </td>
                  <td>
                    <ul className="scope-list">
                      {client.scope.split(' ').map((scope) => (
                        <li key={scope}>
                          <code>{scope}</code>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    <Time seconds={client.created_at} />
                  </td>
                  <td>
                    {client.revoked_at === null ? (
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Revoke ${nameOf(client)}`}
                        onClick={() => void revoke(client)}
                      >
                        Revoke
                      </button>
                    ) : (
                      <span className="badge warn">
                        Revoked <Time seconds={client.revoked_at} />
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <FailureNote failure={revoking.failure} />
      {revoking.notice ? <Notice>{revoking.notice}</Notice> : null}
      {issued ? (
        <SecretOnce
          title={`The secret of “${nameOf(issued)}”`}
          label="Client secret"
          secret={issued.client_secret}
          onClose={() => setIssued(undefined)}
        >
          <dl className="facts">
            <dt>Client id</dt>
            <dd>
              <code>{issued.client_id}</code>
            </dd>
            <dt>Scopes</dt>
            <dd>{issued.scope}</dd>
          </dl>
        </SecretOnce>
      ) : null}
      <NewClientForm create={create} />
    </section>
  )
}

/** A name and scopes, ticked as the API's default; the server's messages beside their fields. */
function NewClientForm({
  create,
}: {
  create: (body: components['schemas']['ClientCreate']) => Promise<void>
}) {
  const id = useId()
  const [values, setValues] = useState<FormValues>(() => valuesOf(fields))
  const [scopes, setScopes] = useState<readonly string[]>(DEFAULT_SCOPES)
  const { busy, failure, errors, run } = useAction()
  useDirty(values.label !== '')

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    void run(async () => {
      const scope = SCOPE_CHOICES.filter((choice) => scopes.includes(choice.name))
        .map((choice) => choice.name)
        .join(' ')
      // An empty choice goes as it is: the server says what is wrong beside the scopes.
      await create({ ...bodyOf(fields, values, 'create'), scope })
      setValues(valuesOf(fields))
      setScopes(DEFAULT_SCOPES)
    })
  }

  return (
    <form className="new-client" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h3 id={`${id}-title`}>New client</h3>
      <div className="form-grid">
        <SchemaFields
          fields={fields}
          values={values}
          onChange={(name, value) => setValues((previous) => ({ ...previous, [name]: value }))}
          errors={errors}
        />
      </div>
      <fieldset className="scope-choices" aria-describedby={errors.scope ? `${id}-scope-error` : undefined}>
        <legend>Scopes</legend>
        {SCOPE_CHOICES.map((choice) => (
          <div key={choice.name} className="scope-choice">
            <input
              id={`${id}-${choice.name}`}
              type="checkbox"
              checked={scopes.includes(choice.name)}
              aria-describedby={`${id}-${choice.name}-hint`}
              onChange={(event) =>
                setScopes((previous) =>
                  event.target.checked
                    ? [...previous, choice.name]
                    : previous.filter((name) => name !== choice.name),
                )
              }
            />
            <label htmlFor={`${id}-${choice.name}`}>
              <code>{choice.name}</code>
            </label>
            <p id={`${id}-${choice.name}-hint`} className="hint">
              {choice.description}
            </p>
          </div>
        ))}
        {errors.scope ? (
          <p id={`${id}-scope-error`} className="field-error">
            Scopes: {errors.scope}
          </p>
        ) : null}
      </fieldset>
      {failure ? (
        <p className="form-error" role="alert">
          {messageOf(failure)}
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Create the client
        </button>
      </div>
    </form>
  )
}
