import type { ContentKind } from '../db/content-kinds.js'
import type { Queryable } from '../db/database.js'
import { toSeconds } from '../time.js'
import { type ContentRows, findQuestion, findSpotlight, listTaggedExperts, listTags } from './repository.js'

/**
 * A post or a question as a version keeps it (src/history/versions.ts): every field its update body
 * takes, as stored, so that the version's snapshot sent back as an update restores the item exactly.
 * A question's answers have their own writes and are not part of it.
 */

interface Publication {
  published: number
  /** Unix seconds, or null. */
  published_date: number | null
  seo: {
    title: string | null
    description: string | null
    keywords: string | null
    image: string | null
    canonical_url: string | null
  }
  tags: string[]
}

export interface ItemSnapshots {
  spotlight: Publication & { title: string; html: string; featured_image: string | null; tagged: string[] }
  question: Publication & { question: string; details: string | null }
}

function publication(row: ContentRows[ContentKind], tags: readonly { tag: string }[]): Publication {
  return {
    published: row.published,
    published_date: toSeconds(row.published_at),
    seo: {
      title: row.seo_title,
      description: row.seo_description,
      keywords: row.seo_keywords,
      image: row.seo_image,
      canonical_url: row.seo_canonical_url,
    },
    tags: tags.map((tag) => tag.tag),
  }
}

const SNAPSHOTS: {
  [K in ContentKind]: (db: Queryable, orgId: number, id: number) => Promise<ItemSnapshots[K] | undefined>
} = {
  async spotlight(db, orgId, id) {
    const row = await findSpotlight(db, orgId, id)
    if (!row) return undefined
    const [tags, tagged] = [
      await listTags(db, orgId, 'spotlight', id),
      await listTaggedExperts(db, orgId, id),
    ]
    return {
      title: row.title,
      html: row.html,
      featured_image: row.featured_image,
      ...publication(row, tags),
      tagged: tagged.map((expert) => expert.username),
    }
  },
  async question(db, orgId, id) {
    const row = await findQuestion(db, orgId, id)
    if (!row) return undefined
    const tags = await listTags(db, orgId, 'question', id)
    return { question: row.question, details: row.details, ...publication(row, tags) }
  },
}

/** The item as a version keeps it; undefined when there is no such item. */
export async function itemSnapshot<K extends ContentKind>(
  db: Queryable,
  orgId: number,
  kind: K,
  id: number,
): Promise<ItemSnapshots[K] | undefined> {
  return SNAPSHOTS[kind](db, orgId, id)
}
