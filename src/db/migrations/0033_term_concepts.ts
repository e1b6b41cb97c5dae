import type { Kysely } from 'kysely'
import { bigint } from './columns.js'

/**
 * Concepts inferred from words (CONTRACT §20): which words of the organization's claimed works go with
 * which of the works' concepts, so that a pasted text naming no concept label still maps to concepts.
 * Derived rows, filled by the search rebuild and kept current by the change hub (src/derived/meaning/):
 *
 * - `meaning_works`: one row per claimed work, with the terms and concept keys it counted for (space
 *   separated; empty when the work has no concept), so a work's contribution is taken out exactly as it
 *   went in, whatever later happens to the work.
 * - `term_concepts`: per organization, term and concept, how many counted works hold both.
 * - `term_works`: per organization, how many counted works hold each term.
 * - `meaning_stats.works`: the counted works (claimed, with at least one concept).
 *
 * Every row and every index starts with `org_id`. The postings indexes of 0030 become covering: a query
 * reads a term's tf and document length, a concept's weight, from the index alone (on SQLite a posting
 * read otherwise looks up every row in the table).
 */

export async function up(db: Kysely<unknown>): Promise<void> {
  const orgId = bigint(db)
  await db.schema
    .createTable('meaning_works')
    .addColumn('org_id', orgId, (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('work_id', bigint(db), (col) => col.notNull().references('works.id').onDelete('cascade'))
    .addColumn('terms', 'text', (col) => col.notNull())
    .addColumn('concepts', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('meaning_works_pk', ['org_id', 'work_id'])
    .execute()

  await db.schema
    .createTable('term_concepts')
    .addColumn('org_id', orgId, (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('term', 'text', (col) => col.notNull())
    .addColumn('concept', 'text', (col) => col.notNull())
    .addColumn('works', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('term_concepts_pk', ['org_id', 'term', 'concept'])
    .execute()

  await db.schema
    .createTable('term_works')
    .addColumn('org_id', orgId, (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('term', 'text', (col) => col.notNull())
    .addColumn('works', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('term_works_pk', ['org_id', 'term'])
    .execute()

  await db.schema
    .alterTable('meaning_stats')
    .addColumn('works', 'integer', (col) => col.notNull().defaultTo(0))
    .execute()

  await db.schema.dropIndex('expert_terms_postings').execute()
  await db.schema
    .createIndex('expert_terms_postings')
    .on('expert_terms')
    .columns(['org_id', 'term', 'expert_id', 'tf', 'length'])
    .execute()
  await db.schema.dropIndex('expert_concepts_postings').execute()
  await db.schema
    .createIndex('expert_concepts_postings')
    .on('expert_concepts')
    .columns(['org_id', 'concept', 'hidden', 'expert_id', 'weight'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('expert_concepts_postings').execute()
  await db.schema
    .createIndex('expert_concepts_postings')
    .on('expert_concepts')
    .columns(['org_id', 'concept', 'hidden', 'expert_id'])
    .execute()
  await db.schema.dropIndex('expert_terms_postings').execute()
  await db.schema
    .createIndex('expert_terms_postings')
    .on('expert_terms')
    .columns(['org_id', 'term', 'expert_id'])
    .execute()
  await db.schema.alterTable('meaning_stats').dropColumn('works').execute()
  for (const table of ['term_works', 'term_concepts', 'meaning_works'])
    await db.schema.dropTable(table).execute()
}
