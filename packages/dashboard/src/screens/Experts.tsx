import { useQuery } from '@tanstack/react-query'
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router'
import { type FormEvent, useEffect, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { bodyOf, type FormValues, fieldsOf, valuesOf } from '../forms/model.ts'
import { SchemaForm } from '../forms/SchemaForm.tsx'
import { canWrite, writesContent } from '../roles.ts'
import { EXPERT_SCHEMAS } from '../schemas.ts'
import { useAction } from '../ui/action.tsx'
import { Empty, ErrorNote, Loading } from '../ui/parts.tsx'
import { SearchBar, type StatusFilter, statusOf } from '../ui/SearchBar.tsx'

const FACETS = ['topics', 'countries', 'industries', 'categories', 'tags'] as const
type Facet = (typeof FACETS)[number]
const ACCESSES = ['all', 'public', 'private'] as const
const PAGE_SIZE = 20

export interface ExpertsSearch {
  q?: string
  status?: StatusFilter
  access?: (typeof ACCESSES)[number]
  page?: number
  facet?: Facet
  value?: string
  /** The name of the expert just deleted, said once above the list. */
  deleted?: string
}

const oneOf = <T extends string>(values: readonly T[], value: unknown): T | undefined =>
  values.find((candidate) => candidate === value)

/** The list's state lives in the URL, so that a search can be shared and Back works. */
export function expertsSearchOf(search: Record<string, unknown>): ExpertsSearch {
  const page = Number(search.page)
  return {
    ...(typeof search.q === 'string' && search.q ? { q: search.q } : {}),
    ...(statusOf(search.status) ? { status: statusOf(search.status) } : {}),
    ...(oneOf(ACCESSES, search.access) ? { access: oneOf(ACCESSES, search.access) } : {}),
    ...(Number.isInteger(page) && page > 1 ? { page } : {}),
    ...(oneOf(FACETS, search.facet) && typeof search.value === 'string'
      ? { facet: oneOf(FACETS, search.facet), value: search.value }
      : {}),
    ...(typeof search.deleted === 'string' && search.deleted ? { deleted: search.deleted } : {}),
  }
}

const route = getRouteApi('/signed-in/experts')
const createFields = fieldsOf(EXPERT_SCHEMAS.create)

const countryNames = new Intl.DisplayNames(undefined, { type: 'region', fallback: 'code' })
/** A facet's value as a person reads it: countries by name (the API counts ISO codes). */
function facetValueName(facet: Facet, value: string): string {
  return facet === 'countries' ? (countryNames.of(value) ?? value) : value
}

const FACET_LABELS: Record<Facet, string> = {
  topics: 'Topics',
  countries: 'Countries',
  industries: 'Industries',
  categories: 'Categories',
  tags: 'Tags',
}

export function ExpertsScreen() {
  const me = useSignedIn()
  const search = route.useSearch()
  const navigate = route.useNavigate()
  const page = search.page ?? 1
  const list = useQuery({
    queryKey: ['experts', me.organization, search],
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/expert', {
          params: {
            path: { corporation: me.organization },
            query: {
              ...(search.q ? { q: search.q } : {}),
              status: search.status ?? 'all',
              access: search.access ?? 'all',
              ...(search.facet && search.value ? { [search.facet]: [search.value] } : {}),
              page_size: PAGE_SIZE,
              page_from: (page - 1) * PAGE_SIZE,
            },
          },
        }),
      ),
    placeholderData: (previous) => previous,
  })

  const set = (change: Partial<ExpertsSearch>) =>
    navigate({
      search: (previous) => expertsSearchOf({ ...previous, page: undefined, deleted: undefined, ...change }),
    })

  const total = list.data?.total ?? 0
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE))

  return (
    <div className="experts">
      <div className="page-head">
        <h1>Experts</h1>
        {writesContent(me) ? <Link to="/experts/import">Import from CSV</Link> : null}
        {canWrite(me) ? <CreateExpert /> : null}
      </div>
      {search.deleted ? (
        <p className="notice" role="status">
          {search.deleted} was deleted.
        </p>
      ) : null}
      <SearchBar
        label="Search experts"
        q={search.q}
        status={search.status}
        onSearch={(q) => set({ q })}
        onStatus={(status) => set({ status })}
      >
        <label>
          Access{' '}
          <select
            value={search.access ?? 'all'}
            onChange={(event) => set({ access: oneOf(ACCESSES, event.target.value) })}
          >
            <option value="all">All</option>
            <option value="public">Public</option>
            <option value="private">Private</option>
          </select>
        </label>
        {search.facet && search.value ? (
          <button type="button" className="chip" onClick={() => set({ facet: undefined, value: undefined })}>
            {FACET_LABELS[search.facet]}: {facetValueName(search.facet, search.value)}{' '}
            <span aria-hidden="true">×</span>
            <span className="visually-hidden"> (remove this filter)</span>
          </button>
        ) : null}
      </SearchBar>
      <div className="with-facets">
        <aside aria-label="Facets" className="facets">
          {list.data
            ? FACETS.map((facet) => {
                const buckets = list.data.aggregations[facet].slice(0, 8)
                if (buckets.length === 0) return null
                return (
                  <section key={facet}>
                    <h2>{FACET_LABELS[facet]}</h2>
                    <ul>
                      {buckets.map((bucket) => (
                        <li key={bucket.key}>
                          <button
                            type="button"
                            className="link"
                            aria-pressed={search.facet === facet && search.value === bucket.key}
                            onClick={() => set({ facet, value: bucket.key })}
                          >
                            {facetValueName(facet, bucket.key)}{' '}
                            <span className="muted">({bucket.count})</span>
                          </button>
                        </li>
                      ))}
                    </ul>
                  </section>
                )
              })
            : null}
        </aside>
        <section aria-label="Results" className="results">
          {list.isPending ? <Loading what="experts" /> : null}
          {list.isError ? <ErrorNote error={list.error} retry={() => void list.refetch()} /> : null}
          {list.data ? (
            <>
              <p role="status" className="muted">
                {total === 1 ? '1 expert' : `${total} experts`}
              </p>
              {list.data.experts.length === 0 ? (
                <Empty>
                  No expert matches. Change the search or the filters{canWrite(me) ? ', or add one' : ''}.
                </Empty>
              ) : (
                <ul className="expert-list">
                  {list.data.experts.map((expert) => (
                    <ExpertRow key={expert.username} expert={expert} />
                  ))}
                </ul>
              )}
              {pages > 1 ? (
                <nav aria-label="Pages" className="pager">
                  <button type="button" disabled={page <= 1} onClick={() => set({ page: page - 1 })}>
                    Previous page
                  </button>
                  <span>
                    Page {page} of {pages}
                  </span>
                  <button
                    type="button"
                    disabled={page >= pages}
                    onClick={() => navigate({ search: (previous) => ({ ...previous, page: page + 1 }) })}
                  >
                    Next page
                  </button>
                </nav>
              ) : null}
            </>
          ) : null}
        </section>
      </div>
    </div>
  )
}

function ExpertRow({ expert }: { expert: components['schemas']['ExpertListItem'] }) {
  // A photo that does not load (stored on a host out of reach) shows as the blank circle, not a broken image.
  const [broken, setBroken] = useState(false)
  return (
    <li className="expert-row">
      {expert.avatar.small && !broken ? (
        <img src={expert.avatar.small} alt="" width={40} height={40} onError={() => setBroken(true)} />
      ) : (
        <span className="avatar-blank" />
      )}
      <div>
        <Link to="/experts/$username" params={{ username: expert.username }}>
          {expert.fullname}
        </Link>
        <p className="muted">{[expert.job_title, expert.department].filter(Boolean).join(', ')}</p>
      </div>
      <div className="badges">
        <span className={expert.is_published ? 'badge ok' : 'badge'}>
          {expert.is_published ? 'Published' : 'Unpublished'}
        </span>
        {expert.is_private ? <span className="badge warn">Private</span> : null}
      </div>
    </li>
  )
}

/** "Add an expert": the create form generated from the API's ExpertCreate schema. */
function CreateExpert() {
  const me = useSignedIn()
  const navigate = useNavigate()
  const [open, setOpen] = useState(false)
  const [values, setValues] = useState<FormValues>(() => valuesOf(createFields))
  const { busy, failure, run } = useAction()

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    void run(async () => {
      const created = dataOf(
        await api.POST('/v2/organization/{corporation}/expert', {
          params: { path: { corporation: me.organization } },
          // The body is checked by the server against the same schema the form was generated from.
          body: bodyOf(createFields, values, 'create') as components['schemas']['ExpertCreate'],
        }),
      )
      await navigate({ to: '/experts/$username', params: { username: created.username } })
    })
  }

  const organization = useQuery({
    queryKey: ['organization', me.organization],
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}', {
          params: { path: { corporation: me.organization } },
        }),
      ),
    enabled: open,
  })
  // Most experts work for the organization itself: its name is the company until someone types another.
  const organizationName = organization.data?.name
  useEffect(() => {
    if (organizationName)
      setValues((previous) => (previous.company ? previous : { ...previous, company: organizationName }))
  }, [organizationName])

  if (!open)
    return (
      <button type="button" className="primary" onClick={() => setOpen(true)}>
        Add an expert
      </button>
    )
  return (
    <SchemaForm
      className="card create-expert"
      onSubmit={submit}
      aria-labelledby="create-title"
      fields={createFields}
      values={values}
      onValues={setValues}
      failure={failure}
      actions={
        <>
          <button type="submit" className="primary" disabled={busy}>
            Create expert
          </button>
          <button type="button" onClick={() => setOpen(false)}>
            Cancel
          </button>
        </>
      }
    >
      <h2 id="create-title">Add an expert</h2>
      <p className="muted">New experts start unpublished. Fields marked * are required.</p>
    </SchemaForm>
  )
}
