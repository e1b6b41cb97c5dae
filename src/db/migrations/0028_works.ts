import type { Kysely } from 'kysely'
import { bigint, idColumn } from './columns.js'

/**
 * Publications that import themselves (CONTRACT §19):
 *
 * - on `experts`: the scholarly identifiers of the account (`orcid`, `openalex_id`, `scopus_id`), each
 *   with the policy a match of it gets (`auto_claim`, `suggest`, `auto_reject`, `ignore`).
 * - `works`: one record per work per organization, found by its DOI, PMID, OpenAlex id or ORCID put-codes;
 *   `fields` holds each field with the source that gave it.
 * - `work_candidates`: a work offered to an expert and the decision about it.
 * - `work_rejections`: every identifier a rejected work had, so that the same work reached through another
 *   identifier later is not offered again.
 * - `work_duplicates`: two works that look alike (title, year, first author) for a person to review.
 * - `work_runs`: the log of refreshes; `work_schedule`: when each expert is due and who holds its refresh.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['orcid', 'openalex_id', 'scopus_id'])
    await db.schema.alterTable('experts').addColumn(column, 'text').execute()
  for (const column of ['orcid_policy', 'openalex_policy', 'scopus_policy'])
    await db.schema
      .alterTable('experts')
      .addColumn(column, 'text', (col) => col.notNull().defaultTo('suggest'))
      .execute()

  await db.schema
    .createTable('works')
    .addColumn('id', ...idColumn(db))
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('doi_norm', 'text')
    .addColumn('pmid', 'text')
    .addColumn('openalex_id', 'text')
    // JSON array of ORCID put-codes.
    .addColumn('orcid_putcodes', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('title_fingerprint', 'text')
    .addColumn('year', 'integer')
    .addColumn('first_author', 'text')
    // JSON: { field: { value, source } }.
    .addColumn('fields', 'text', (col) => col.notNull().defaultTo('{}'))
    // 1 while the work has an identifier but no title yet: the next refresh looks it up again.
    .addColumn('needs_lookup', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('updated_at', bigint(db), (col) => col.notNull())
    .addUniqueConstraint('works_doi', ['org_id', 'doi_norm'])
    .addUniqueConstraint('works_pmid', ['org_id', 'pmid'])
    .addUniqueConstraint('works_openalex', ['org_id', 'openalex_id'])
    .execute()
  await db.schema
    .createIndex('works_fingerprint')
    .on('works')
    .columns(['org_id', 'title_fingerprint'])
    .execute()

  await db.schema
    .createTable('work_candidates')
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('expert_id', bigint(db), (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addColumn('work_id', bigint(db), (col) => col.notNull().references('works.id').onDelete('cascade'))
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('score', 'real', (col) => col.notNull())
    .addColumn('first_seen', bigint(db), (col) => col.notNull())
    // `system` (a policy or a signal), `person:<id>`, `client:<id>` or `cli`.
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', bigint(db))
    .addColumn('note', 'text')
    .addPrimaryKeyConstraint('work_candidates_pk', ['expert_id', 'work_id'])
    .execute()
  await db.schema
    .createIndex('work_candidates_list')
    .on('work_candidates')
    .columns(['org_id', 'expert_id', 'state', 'work_id'])
    .execute()

  await db.schema
    .createTable('work_rejections')
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('expert_id', bigint(db), (col) => col.notNull().references('experts.id').onDelete('cascade'))
    // `doi`, `pmid`, `openalex` or `putcode`.
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('work_id', bigint(db), (col) => col.notNull())
    .addPrimaryKeyConstraint('work_rejections_pk', ['expert_id', 'kind', 'value'])
    .execute()

  await db.schema
    .createTable('work_duplicates')
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('work_id', bigint(db), (col) => col.notNull().references('works.id').onDelete('cascade'))
    .addColumn('other_work_id', bigint(db), (col) => col.notNull().references('works.id').onDelete('cascade'))
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addPrimaryKeyConstraint('work_duplicates_pk', ['work_id', 'other_work_id'])
    .execute()

  await db.schema
    .createTable('work_runs')
    .addColumn('id', ...idColumn(db))
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('expert_id', bigint(db), (col) => col.references('experts.id').onDelete('set null'))
    .addColumn('username', 'text', (col) => col.notNull())
    // `schedule`, `request` (refresh now) or `cli`.
    .addColumn('trigger', 'text', (col) => col.notNull())
    // `running`, `finished` or `failed`.
    .addColumn('status', 'text', (col) => col.notNull())
    // JSON array of the source names the run asked.
    .addColumn('sources', 'text', (col) => col.notNull().defaultTo('[]'))
    // JSON object of counts: found, created, updated, claimed, pending, rejected.
    .addColumn('counts', 'text', (col) => col.notNull().defaultTo('{}'))
    // JSON arrays of { source, message }.
    .addColumn('errors', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('notes', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('started_at', bigint(db), (col) => col.notNull())
    .addColumn('finished_at', bigint(db))
    .execute()
  await db.schema.createIndex('work_runs_list').on('work_runs').columns(['org_id', 'id']).execute()

  await db.schema
    .createTable('work_schedule')
    .addColumn('expert_id', bigint(db), (col) =>
      col.primaryKey().references('experts.id').onDelete('cascade'),
    )
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('due_at', bigint(db), (col) => col.notNull())
    .addColumn('locked_until', bigint(db))
    .addColumn('lock_token', 'text')
    .addColumn('last_refreshed_at', bigint(db))
    .execute()
  await db.schema.createIndex('work_schedule_due').on('work_schedule').column('due_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'work_schedule',
    'work_runs',
    'work_duplicates',
    'work_rejections',
    'work_candidates',
    'works',
  ])
    await db.schema.dropTable(table).execute()
  for (const column of [
    'scopus_policy',
    'openalex_policy',
    'orcid_policy',
    'scopus_id',
    'openalex_id',
    'orcid',
  ])
    await db.schema.alterTable('experts').dropColumn(column).execute()
}
