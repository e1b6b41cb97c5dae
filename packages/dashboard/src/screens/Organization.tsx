import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { UnsavedChangesGuard } from '../forms/dirty.tsx'
import { ElementForm } from '../forms/ElementForm.tsx'
import { fieldsOf } from '../forms/model.ts'
import { administers } from '../roles.ts'
import { ORGANIZATION_SCHEMA } from '../schemas.ts'
import { ErrorNote, Loading } from '../ui/parts.tsx'

/** Every field of the generated `OrganizationUpdate` schema, so a new one (a switch) shows without code here. */
const fields = fieldsOf(ORGANIZATION_SCHEMA)

/** The organization's profile, which every expert profile shows (CONTRACT §9). */
export function OrganizationScreen() {
  const me = useSignedIn()
  const queries = useQueryClient()
  const key = ['organization', me.organization]
  const organization = useQuery({
    queryKey: key,
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}', {
          params: { path: { corporation: me.organization } },
        }),
      ),
  })
  const save = async (body: Record<string, unknown>) => {
    dataOf(
      await api.PUT('/v2/organization/{corporation}', {
        params: { path: { corporation: me.organization } },
        // Checked by the server against the schema the form was generated from.
        body: body as components['schemas']['OrganizationUpdate'],
      }),
    )
    await queries.invalidateQueries({ queryKey: key })
  }
  return (
    <div className="organization">
      <h1>Organization</h1>
      <p className="muted">Every expert profile shows the organization’s profile and its social links.</p>
      {administers(me) ? (
        <p>
          <Link to="/notifications">Who is emailed about inquiries</Link>: the desk’s addresses for each kind
          of inquiry.
        </p>
      ) : null}
      {organization.isPending ? <Loading what="the organization" /> : null}
      {organization.isError ? (
        <ErrorNote error={organization.error} retry={() => void organization.refetch()} />
      ) : null}
      {organization.data ? (
        <UnsavedChangesGuard>
          <section className="card">
            <ElementForm
              title="Organization profile"
              fields={fields}
              element={{ ...organization.data }}
              mode="update"
              submitLabel="Save"
              onSave={save}
            />
          </section>
        </UnsavedChangesGuard>
      ) : null}
    </div>
  )
}
