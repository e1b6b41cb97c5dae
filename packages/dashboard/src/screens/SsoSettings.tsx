import { useQuery, useQueryClient } from '@tanstack/react-query'
import { type ReactNode, useId, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { ApiFailure, dataOf, messageOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { UnsavedChangesGuard } from '../forms/dirty.tsx'
import { ElementForm } from '../forms/ElementForm.tsx'
import { fieldsOf } from '../forms/model.ts'
import { SSO_SCHEMA } from '../schemas.ts'
import { NameList } from '../ui/NameList.tsx'
import { ErrorNote, Loading, Notice } from '../ui/parts.tsx'
import { RoleMappings } from './RoleMappings.tsx'

type Settings = components['schemas']['SsoSettings']
type Domain = components['schemas']['SsoDomain']
/** The generated fields of `SsoSettingsUpdate`, labelled by the schema's titles; the client secret is write-only, so its field starts empty. */
const fields = fieldsOf(SSO_SCHEMA)
const protocolNames = new Map(
  fields.find((field) => field.name === 'protocol')?.options.map((option) => [option.value, option.label]),
)

/**
 * The organization's single sign-on (CONTRACT §14) over `.../sso`: an owner changes it, an admin reads
 * it (the API refuses an admin's change: who may sign in as whom is an owner's decision).
 */
export function SsoSettingsScreen() {
  const me = useSignedIn()
  const queries = useQueryClient()
  const key = ['sso', me.organization]
  const path = { params: { path: { corporation: me.organization } } }
  const settings = useQuery({
    queryKey: key,
    queryFn: async (): Promise<Settings | null> => {
      try {
        return dataOf(await api.GET('/v2/organization/{corporation}/sso', path))
      } catch (error) {
        if (error instanceof ApiFailure && error.status === 404) return null
        throw error
      }
    },
  })
  const save = async (body: Record<string, unknown>) => {
    const saved = dataOf(
      await api.PUT('/v2/organization/{corporation}/sso', {
        ...path,
        // Checked by the server against the schema the form was generated from.
        body: body as components['schemas']['SsoSettingsUpdate'],
      }),
    )
    queries.setQueryData(key, saved)
  }
  return (
    <div className="sso-settings">
      <h1>Single sign-on</h1>
      <p className="muted">
        People of the organization sign in through its identity provider, with OpenID Connect or SAML 2.0.
      </p>
      {settings.isPending ? <Loading what="the single sign-on settings" /> : null}
      {settings.isError ? <ErrorNote error={settings.error} retry={() => void settings.refetch()} /> : null}
      {me.role !== 'owner' ? (
        <Notice>
          Only an owner may change single sign-on: you can read it here. Each change is emailed to the owners.
        </Notice>
      ) : null}
      {settings.data !== undefined && me.role !== 'owner' ? (
        settings.data ? (
          <SsoReadOnly settings={settings.data} />
        ) : (
          <p className="empty">Single sign-on is not set up.</p>
        )
      ) : null}
      {settings.data !== undefined && me.role === 'owner' ? (
        <UnsavedChangesGuard>
          <SsoEditor
            settings={settings.data}
            save={save}
            verify={async (domain) => {
              dataOf(
                await api.POST('/v2/organization/{corporation}/sso/domains/{domain}/verify', {
                  params: { path: { corporation: me.organization, domain } },
                }),
              )
              await queries.invalidateQueries({ queryKey: key })
            }}
            remove={async () => {
              dataOf(await api.DELETE('/v2/organization/{corporation}/sso', path))
              queries.setQueryData(key, null)
            }}
          />
        </UnsavedChangesGuard>
      ) : null}
    </div>
  )
}

/** Where the identity provider sends people back, and whether a client secret is stored. */
function ProviderAddresses({ settings }: { settings: Settings }) {
  return (
    <section className="card" aria-labelledby="sso-addresses">
      <h2 id="sso-addresses">For the identity provider</h2>
      <dl className="facts">
        {settings.protocol === 'oidc' ? (
          <>
            <dt>Redirect URI</dt>
            <dd>{settings.redirect_uri}</dd>
          </>
        ) : (
          <>
            <dt>SP metadata</dt>
            <dd>{settings.metadata_url}</dd>
            <dt>Assertion consumer service</dt>
            <dd>{settings.acs_url}</dd>
          </>
        )}
        <dt>Sign-in address</dt>
        <dd>{settings.sign_in_url}</dd>
        <dt>Client secret</dt>
        <dd>
          {settings.client_secret_set ? 'Stored (never shown); type a new one below to replace it' : 'None'}
        </dd>
      </dl>
    </section>
  )
}

/** What an admin sees: the settings as they are, nothing to change. */
function SsoReadOnly({ settings }: { settings: Settings }) {
  return (
    <>
      <ProviderAddresses settings={settings} />
      <section className="card" aria-labelledby="sso-current-title">
        <h2 id="sso-current-title">Settings</h2>
        <dl className="facts">
          <dt>Protocol</dt>
          <dd>{protocolNames.get(settings.protocol) ?? settings.protocol}</dd>
          <dt>Identity provider</dt>
          <dd>{settings.protocol === 'oidc' ? settings.issuer : settings.entry_point}</dd>
          <dt>Create people on first sign-in</dt>
          <dd>{settings.allow_create ? 'Yes' : 'No'}</dd>
          <dt>Passwords</dt>
          <dd>{settings.passwords_off ? 'Off' : 'On'}</dd>
        </dl>
      </section>
      <DomainsSection domains={settings.domains} />
    </>
  )
}

/**
 * The allowed domains and their verification: a domain sends its people to this sign-on from the
 * sign-in page only once its TXT record is found (or the service's operator approved it).
 */
function DomainsSection({
  domains,
  verify,
  children,
}: {
  domains: readonly Domain[]
  verify?: (domain: string) => Promise<void>
  children?: ReactNode
}) {
  return (
    <section className="card" aria-labelledby="sso-domains-title">
      <h2 id="sso-domains-title">Email domains</h2>
      <p className="muted">
        Only addresses of these domains may sign in; none: any address. A domain belongs to one organization,
        and the sign-in page sends its people here once it is verified.
      </p>
      {children}
      {domains.length > 0 ? (
        <ul className="sso-domains" aria-label="Domain verification">
          {domains.map((domain) => (
            <DomainRow key={domain.domain} domain={domain} verify={verify} />
          ))}
        </ul>
      ) : null}
    </section>
  )
}

function DomainRow({
  domain,
  verify,
}: {
  domain: Domain
  verify?: ((domain: string) => Promise<void>) | undefined
}) {
  const [failure, setFailure] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const errorId = useId()
  return (
    <li>
      <div className="sso-domain-head">
        <strong>{domain.domain}</strong>{' '}
        {domain.verified ? (
          <span className="badge ok">
            Verified{domain.verified_by === 'operator' ? ' by the operator' : ' by DNS'}
          </span>
        ) : (
          <span className="badge warn">Not verified: routes no one yet</span>
        )}
      </div>
      {domain.verified ? null : (
        <>
          <p className="muted">Add this TXT record at the domain’s DNS provider, then check it:</p>
          <dl className="facts">
            <dt>Name</dt>
            <dd>
              <code>{domain.txt_name}</code>
            </dd>
            <dt>Value</dt>
            <dd>
              <code>{domain.txt_value}</code>
            </dd>
          </dl>
          {verify ? (
            <div className="actions">
              <button
                type="button"
                disabled={busy}
                aria-describedby={failure ? errorId : undefined}
                onClick={() => {
                  setBusy(true)
                  setFailure(undefined)
                  verify(domain.domain).then(
                    () => setBusy(false),
                    (error: unknown) => {
                      setBusy(false)
                      setFailure(error)
                    },
                  )
                }}
              >
                {busy ? 'Checking…' : `Check the TXT record of ${domain.domain}`}
              </button>
            </div>
          ) : null}
          {failure ? (
            <p className="form-error" role="alert" id={errorId}>
              {messageOf(failure)}
            </p>
          ) : null}
        </>
      )}
    </li>
  )
}

function SsoEditor({
  settings,
  save,
  verify,
  remove,
}: {
  settings: Settings | null
  save: (body: Record<string, unknown>) => Promise<void>
  verify: (domain: string) => Promise<void>
  remove: () => Promise<void>
}) {
  const [failure, setFailure] = useState<unknown>()
  const [notice, setNotice] = useState('')
  return (
    <>
      {settings ? (
        <ProviderAddresses settings={settings} />
      ) : (
        <p className="empty">Single sign-on is not set up. Choose the protocol and what it needs below.</p>
      )}
      <section className="card" aria-labelledby="sso-settings-title">
        <h2 id="sso-settings-title">Settings</h2>
        <ElementForm
          title="Single sign-on settings"
          fields={fields}
          element={settings ? { ...settings } : undefined}
          mode={settings ? 'update' : 'create'}
          submitLabel={settings ? 'Save' : 'Set up single sign-on'}
          onSave={save}
        />
      </section>
      {settings ? (
        <section className="card" aria-labelledby="sso-groups-title">
          <h2 id="sso-groups-title">Groups and roles</h2>
          <RoleMappings mappings={settings.role_mapping} save={save} />
        </section>
      ) : null}
      {settings ? (
        <DomainsSection domains={settings.domains} verify={verify}>
          <NameList
            label="Email domains"
            inputLabel="Add a domain"
            names={settings.allowed_domains}
            write={(allowed_domains) => save({ allowed_domains })}
          />
        </DomainsSection>
      ) : null}
      {settings ? (
        <section className="card" aria-labelledby="sso-remove-title">
          <h2 id="sso-remove-title">Remove</h2>
          <p className="muted">People sign in with their passwords again; the owners are emailed.</p>
          <div className="actions">
            <button
              type="button"
              className="danger"
              onClick={() => {
                if (!window.confirm('Remove single sign-on? Passwords work again.')) return
                setFailure(undefined)
                remove().then(
                  () => setNotice('Single sign-on removed.'),
                  (error: unknown) => setFailure(error),
                )
              }}
            >
              Remove single sign-on
            </button>
          </div>
          {failure ? (
            <p className="form-error" role="alert">
              {messageOf(failure)}
            </p>
          ) : null}
        </section>
      ) : null}
      {notice ? <Notice>{notice}</Notice> : null}
    </>
  )
}
