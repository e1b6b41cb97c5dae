import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { getRouteApi, Link } from '@tanstack/react-router'
import { listContent, PAGE_SIZE } from '../api/content.ts'
import { useSignedIn } from '../api/session.ts'
import { Empty, ErrorNote, Loading } from '../ui/parts.tsx'
import { SearchBar } from '../ui/SearchBar.tsx'
import { type ContentKind, POSTS, QUESTIONS } from './content-kinds.ts'

export interface ContentSearch {
  q?: string
  status?: 'published' | 'unpublished'
  page?: number
}

export function contentSearchOf(search: Record<string, unknown>): ContentSearch {
  const page = Number(search.page)
  const status = search.status === 'published' || search.status === 'unpublished' ? search.status : undefined
  return {
    ...(typeof search.q === 'string' && search.q ? { q: search.q } : {}),
    ...(status ? { status } : {}),
    ...(Number.isInteger(page) && page > 1 ? { page } : {}),
  }
}

const postsRoute = getRouteApi('/signed-in/posts')
const questionsRoute = getRouteApi('/signed-in/questions')

export function PostsScreen() {
  const navigate = postsRoute.useNavigate()
  return (
    <ContentList kind={POSTS} search={postsRoute.useSearch()} go={(search) => void navigate({ search })} />
  )
}

export function QuestionsScreen() {
  const navigate = questionsRoute.useNavigate()
  return (
    <ContentList
      kind={QUESTIONS}
      search={questionsRoute.useSearch()}
      go={(search) => void navigate({ search })}
    />
  )
}

const dateOf = (seconds: number | null) => (seconds ? new Date(seconds * 1000).toLocaleDateString() : '')

/** Posts or Q&A items: search, the status filter, pages, and the way to a new one. */
function ContentList({
  kind,
  search,
  go,
}: {
  kind: ContentKind
  search: ContentSearch
  go: (search: ContentSearch) => void
}) {
  const me = useSignedIn()
  const page = search.page ?? 1
  const list = useQuery({
    queryKey: ['content', kind.kind, me.organization, search],
    queryFn: () => listContent(kind, me.organization, { ...search, page }),
    placeholderData: keepPreviousData,
  })
  const set = (change: Partial<ContentSearch>) =>
    go(contentSearchOf({ ...search, page: undefined, ...change }))
  const total = list.data?.total ?? 0
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE))
  const noun = (count: number) => `${count} ${count === 1 ? kind.singular : kind.plural}`

  return (
    <div className="content-list">
      <div className="page-head">
        <h1>{kind.heading}</h1>
        <Link className="button primary" to={`${kind.route}/$id`} params={{ id: 'new' }}>
          New {kind.singular}
        </Link>
      </div>
      <SearchBar
        label={`Search ${kind.plural}`}
        q={search.q}
        status={search.status}
        onSearch={(q) => set({ q })}
        onStatus={(status) => go(contentSearchOf({ ...search, page: undefined, status }))}
      />
      {list.isPending ? <Loading what={kind.plural} /> : null}
      {list.isError ? <ErrorNote error={list.error} retry={() => void list.refetch()} /> : null}
      {list.data ? (
        <>
          <p role="status" className="muted">
            {noun(total)}
          </p>
          {list.data.rows.length === 0 ? (
            <Empty>
              No {kind.singular} matches.{' '}
              {search.q || search.status ? 'Change the search or the filter.' : `Write the first one.`}
            </Empty>
          ) : (
            <ul className="content-rows">
              {list.data.rows.map((row) => (
                <li key={row.id} className="content-row">
                  <div>
                    <Link to={`${kind.route}/$id`} params={{ id: String(row.id) }}>
                      {row.title}
                    </Link>
                    <p className="muted">
                      {[
                        dateOf(row.published_date),
                        row.tags.join(', '),
                        row.people.length ? `${kind.people} ${row.people.join(', ')}` : '',
                      ]
                        .filter(Boolean)
                        .join(' · ')}
                    </p>
                  </div>
                  <span className={row.published ? 'badge ok' : 'badge'}>
                    {row.published ? 'Published' : 'Draft'}
                  </span>
                </li>
              ))}
            </ul>
          )}
          {pages > 1 ? (
            <nav aria-label="Pages" className="pager">
              <button type="button" disabled={page <= 1} onClick={() => go({ ...search, page: page - 1 })}>
                Previous page
              </button>
              <span>
                Page {page} of {pages}
              </span>
              <button
                type="button"
                disabled={page >= pages}
                onClick={() => go({ ...search, page: page + 1 })}
              >
                Next page
              </button>
            </nav>
          ) : null}
        </>
      ) : null}
    </div>
  )
}
