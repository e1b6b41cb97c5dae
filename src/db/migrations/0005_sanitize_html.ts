import type { Kysely } from 'kysely'
import { sanitizeHtml } from '../../validation/html.js'

const BATCH = 500

/** The migration sees the tables as they are at this step, not as the current schema types say. */
type Tables = Record<string, Record<string, string | number | null>>

/** Rewrites one text column of every row through the sanitizer, in id order and in batches. */
async function sanitizeColumn(db: Kysely<Tables>, table: string, column: string): Promise<void> {
  let after = 0
  for (;;) {
    const rows = (await db
      .selectFrom(table)
      .select(['id', `${column} as value`])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute()) as { id: number; value: string | null }[]
    if (rows.length === 0) return
    for (const { id, value } of rows) {
      if (value === null) continue
      const clean = sanitizeHtml(value)
      if (clean !== value)
        await db
          .updateTable(table)
          .set({ [column]: clean })
          .where('id', '=', id)
          .execute()
    }
    after = Number(rows[rows.length - 1]?.id)
  }
}

/** Biographies are the one profile section holding markup (its element JSON has a `biography` key). */
async function sanitizeBiographies(db: Kysely<Tables>): Promise<void> {
  const rows = (await db
    .selectFrom('profile_items')
    .select(['id', 'data'])
    .where('section', '=', 'biography')
    .execute()) as { id: number; data: string }[]
  for (const { id, data } of rows) {
    const element = JSON.parse(data) as Record<string, unknown>
    if (typeof element.biography !== 'string') continue
    const clean = sanitizeHtml(element.biography)
    if (clean === element.biography) continue
    await db
      .updateTable('profile_items')
      .set({ data: JSON.stringify({ ...element, biography: clean }) })
      .where('id', '=', id)
      .execute()
  }
}

/**
 * HTML written before sanitizing existed (post html, question details, answers, biographies) goes
 * through the same allow-list as every write now does, so that what is stored is what may be served.
 * Not reversible: `down` keeps the sanitized text.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const tables = db.withTables<Tables>()
  await sanitizeColumn(tables, 'spotlights', 'html')
  await sanitizeColumn(tables, 'questions', 'details')
  await sanitizeColumn(tables, 'answers', 'answer')
  await sanitizeBiographies(tables)
}

export async function down(): Promise<void> {}
