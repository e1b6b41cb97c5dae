import type { ColumnDataType, Kysely } from 'kysely'
import { bigint, isPostgres } from './columns.js'

/**
 * Finding experts by meaning (CONTRACT §20), tables derived from the profiles and claimed works, filled
 * by the search rebuild (src/derived/meaning/) and kept current by the change hub:
 *
 * - `meaning_documents`: one row per expert: its flags (so that narrowing needs no join), how many
 *   concepts its fingerprint has and how many terms its text has.
 * - `meaning_stats`: per organization, the experts with a fingerprint, the documents and their total length.
 * - `expert_concepts`: an expert's concepts with their weight before IDF; hidden ones stay, flagged.
 * - `concept_df`: per organization, how many experts have each (visible) concept.
 * - `hidden_concepts`: the concepts an expert or an editor hid; they outlive every recompute.
 * - `expert_terms`: the "more like this" postings: term, its frequency, the document's length.
 * - `term_df`: per organization, how many experts' documents hold each term.
 *
 * Every row and every index starts with `org_id`. Also an index of claimed works by work, for co-authors.
 */

/** A double-precision column: PostgreSQL's `real` is single precision. */
const double = (db: Kysely<unknown>): ColumnDataType => (isPostgres(db) ? 'double precision' : 'real')

export async function up(db: Kysely<unknown>): Promise<void> {
  const orgId = bigint(db)
  const expertId = bigint(db)
  await db.schema
    .createTable('meaning_documents')
    .addColumn('org_id', orgId, (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('expert_id', expertId, (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addColumn('is_published', 'integer', (col) => col.notNull())
    .addColumn('is_private', 'integer', (col) => col.notNull())
    .addColumn('concepts', 'integer', (col) => col.notNull())
    .addColumn('length', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('meaning_documents_pk', ['org_id', 'expert_id'])
    .execute()

  await db.schema
    .createTable('meaning_stats')
    .addColumn('org_id', orgId, (col) => col.primaryKey().references('organizations.id').onDelete('cascade'))
    .addColumn('concept_experts', 'integer', (col) => col.notNull())
    .addColumn('documents', 'integer', (col) => col.notNull())
    .addColumn('total_length', bigint(db), (col) => col.notNull())
    .execute()

  await db.schema
    .createTable('expert_concepts')
    .addColumn('org_id', orgId, (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('expert_id', expertId, (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addColumn('concept', 'text', (col) => col.notNull())
    .addColumn('label', 'text', (col) => col.notNull())
    .addColumn('weight', double(db), (col) => col.notNull())
    .addColumn('hidden', 'integer', (col) => col.notNull())
    .addColumn('is_published', 'integer', (col) => col.notNull())
    .addColumn('is_private', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('expert_concepts_pk', ['org_id', 'expert_id', 'concept'])
    .execute()
  await db.schema
    .createIndex('expert_concepts_postings')
    .on('expert_concepts')
    .columns(['org_id', 'concept', 'hidden', 'expert_id'])
    .execute()

  await db.schema
    .createTable('concept_df')
    .addColumn('org_id', orgId, (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('concept', 'text', (col) => col.notNull())
    .addColumn('df', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('concept_df_pk', ['org_id', 'concept'])
    .execute()

  await db.schema
    .createTable('hidden_concepts')
    .addColumn('org_id', orgId, (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('expert_id', expertId, (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addColumn('concept', 'text', (col) => col.notNull())
    .addColumn('hidden_at', bigint(db), (col) => col.notNull())
    .addPrimaryKeyConstraint('hidden_concepts_pk', ['org_id', 'expert_id', 'concept'])
    .execute()

  await db.schema
    .createTable('expert_terms')
    .addColumn('org_id', orgId, (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('expert_id', expertId, (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addColumn('term', 'text', (col) => col.notNull())
    // The word the term stands for in this document (its most frequent form), for explanations.
    .addColumn('word', 'text', (col) => col.notNull())
    .addColumn('tf', 'integer', (col) => col.notNull())
    .addColumn('length', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('expert_terms_pk', ['org_id', 'expert_id', 'term'])
    .execute()
  await db.schema
    .createIndex('expert_terms_postings')
    .on('expert_terms')
    .columns(['org_id', 'term', 'expert_id'])
    .execute()

  await db.schema
    .createTable('term_df')
    .addColumn('org_id', orgId, (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('term', 'text', (col) => col.notNull())
    .addColumn('df', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('term_df_pk', ['org_id', 'term'])
    .execute()

  await db.schema
    .createIndex('work_candidates_by_work')
    .on('work_candidates')
    .columns(['org_id', 'work_id', 'state', 'expert_id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('work_candidates_by_work').execute()
  for (const table of [
    'term_df',
    'expert_terms',
    'hidden_concepts',
    'concept_df',
    'expert_concepts',
    'meaning_stats',
    'meaning_documents',
  ])
    await db.schema.dropTable(table).execute()
}
