import type { Queryable } from '../db/database.js'
import { profileVisibleSql } from '../derived/audience.js'
import { render } from './templates.js'
import type { DirectoryUrls } from './urls.js'

/**
 * The directory's sitemap (sitemaps.org): the find-an-expert page, then every page the public may see
 * (published, public experts; published posts and Q&A items), with their last change. Past
 * `perFile` URLs it is an index of numbered files (`sitemap.xml?page=N`), 50,000 URLs each at most.
 */

export const MAX_SITEMAP_URLS = 50_000

interface Entry {
  loc: string
  lastmod?: string
}

const isoDate = (ms: number | string) => new Date(Number(ms)).toISOString()

async function counts(db: Queryable, orgId: number) {
  const [experts, posts, questions] = await Promise.all([
    db
      .selectFrom('experts')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('org_id', '=', orgId)
      .where('type', '=', 'expert')
      .where(profileVisibleSql('experts', 'public'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('spotlights')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('org_id', '=', orgId)
      .where('published', '=', 1)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('questions')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('org_id', '=', orgId)
      .where('published', '=', 1)
      .executeTakeFirstOrThrow(),
  ])
  return [1, Number(experts.count), Number(posts.count), Number(questions.count)] as const
}

/** The entries `[offset, offset + limit)` of one kind's list. */
async function slice(
  db: Queryable,
  orgId: number,
  kind: number,
  offset: number,
  limit: number,
  urls: DirectoryUrls,
): Promise<Entry[]> {
  if (kind === 0) return [{ loc: urls.home }]
  if (kind === 1) {
    const rows = await db
      .selectFrom('experts')
      .select(['username', 'updated_at'])
      .where('org_id', '=', orgId)
      .where('type', '=', 'expert')
      .where(profileVisibleSql('experts', 'public'))
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute()
    return rows.map((row) => ({ loc: urls.expert(row.username), lastmod: isoDate(row.updated_at) }))
  }
  const table = kind === 2 ? 'spotlights' : 'questions'
  const rows = await db
    .selectFrom(table)
    .select(['id', 'updated_at'])
    .where('org_id', '=', orgId)
    .where('published', '=', 1)
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute()
  return rows.map((row) => ({
    loc: kind === 2 ? urls.post(Number(row.id)) : urls.question(Number(row.id)),
    lastmod: isoDate(row.updated_at),
  }))
}

/**
 * The sitemap document for `page` (undefined: the sitemap itself, or the index when the URLs do not fit
 * one file); undefined for a page number past the last.
 */
export async function sitemapXml(
  db: Queryable,
  orgId: number,
  urls: DirectoryUrls,
  page: number | undefined,
  perFile = MAX_SITEMAP_URLS,
): Promise<string | undefined> {
  const sizes = await counts(db, orgId)
  const total = sizes.reduce((sum, size) => sum + size, 0)
  const files = Math.ceil(total / perFile)
  if (page === undefined && files > 1) {
    const sitemaps = Array.from({ length: files }, (_, index) => urls.sitemap(index + 1))
    return render('sitemapIndex', { sitemaps })
  }
  const number = page ?? 1
  if (number > files) return undefined
  let start = (number - 1) * perFile
  let remaining = perFile
  const entries: Entry[] = []
  for (const [kind, size] of sizes.entries()) {
    if (remaining === 0) break
    if (start >= size) {
      start -= size
      continue
    }
    const taken = await slice(db, orgId, kind, start, Math.min(remaining, size - start), urls)
    entries.push(...taken)
    remaining -= taken.length
    start = 0
  }
  return render('urlset', { urls: entries })
}
