import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely'
import { bigint, isPostgres } from './columns.js'

/**
 * Full-text search (docs/api.md, "Search"): one index row per expert, post and question, plus the
 * expert facet values. SQLite indexes the rows with FTS5 external-content tables kept in step by
 * triggers; PostgreSQL with a generated, weighted `tsvector` column under a GIN index.
 *
 * Tables only: the rows of data that exists already are filled by the step that runs after the schema
 * migrations (src/system/migrate.ts), with the index code of the release that runs it.
 */

const FTS_TOKENIZER = "tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'"

/** Searchable text columns of each index table, in FTS column order (bm25 weights follow it). */
const TEXT_COLUMNS = {
  expert_search: ['names', 'title', 'tagline', 'keywords', 'biography'],
  spotlight_search: ['title', 'body'],
  question_search: ['question', 'details', 'answers'],
} as const

/** PostgreSQL: column -> setweight letter (A ranks highest). */
const PG_WEIGHTS: Record<keyof typeof TEXT_COLUMNS, Record<string, 'A' | 'B' | 'C' | 'D'>> = {
  expert_search: { names: 'A', title: 'B', tagline: 'C', keywords: 'C', biography: 'D' },
  spotlight_search: { title: 'A', body: 'D' },
  question_search: { question: 'A', details: 'C', answers: 'D' },
}

const SORT_COLUMNS = new Set(['sort_last', 'sort_first', 'username'])

const KEY_COLUMNS = {
  expert_search: 'expert_id',
  spotlight_search: 'spotlight_id',
  question_search: 'question_id',
} as const

export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = isPostgres(db)
  if (pg) await createUnaccentWrapper(db)
  // Sort keys compare byte-wise on both databases, so both order names alike.
  const text = (name: string) => (col: ColumnDefinitionBuilder) =>
    pg && SORT_COLUMNS.has(name)
      ? col.notNull().defaultTo('').modifyEnd(sql`collate "C"`)
      : col.notNull().defaultTo('')
  const orgColumn = (col: ColumnDefinitionBuilder) =>
    col.notNull().references('organizations.id').onDelete('cascade')

  let experts = db.schema
    .createTable('expert_search')
    .addColumn('expert_id', pg ? 'bigint' : 'integer', (col) =>
      col.primaryKey().references('experts.id').onDelete('cascade'),
    )
    .addColumn('org_id', bigint(db), orgColumn)
  for (const column of TEXT_COLUMNS.expert_search) experts = experts.addColumn(column, 'text', text(column))
  await experts
    .addColumn('sort_last', 'text', text('sort_last'))
    .addColumn('sort_first', 'text', text('sort_first'))
    .addColumn('username', 'text', text('username'))
    .addColumn('company_key', 'text', text('company_key'))
    .addColumn('is_published', 'integer', (col) => col.notNull())
    .addColumn('is_private', 'integer', (col) => col.notNull())
    .addColumn('completeness', 'integer', (col) => col.notNull())
    .addColumn('modified', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema
    .createIndex('expert_search_name')
    .on('expert_search')
    .columns(['org_id', 'sort_last', 'sort_first', 'username'])
    .execute()
  await db.schema
    .createIndex('expert_search_flags')
    .on('expert_search')
    .columns(['org_id', 'is_private', 'is_published'])
    .execute()
  await db.schema
    .createIndex('expert_search_modified')
    .on('expert_search')
    .columns(['org_id', 'modified'])
    .execute()
  await db.schema
    .createIndex('expert_search_featured')
    .on('expert_search')
    .columns(['org_id', 'completeness'])
    .execute()
  await db.schema
    .createIndex('expert_search_company')
    .on('expert_search')
    .columns(['org_id', 'company_key'])
    .execute()

  // One row per expert and distinct facet value, with the expert's flags (kept for the counts below).
  let facets = db.schema
    .createTable('expert_facets')
    .addColumn('expert_id', bigint(db), (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addColumn('facet', 'text', (col) => col.notNull())
    .addColumn('value_key', 'text', (col) => col.notNull())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('org_id', bigint(db), orgColumn)
    .addColumn('is_published', 'integer', (col) => col.notNull())
    .addColumn('is_private', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('expert_facets_pk', ['expert_id', 'facet', 'value_key'])
  if (!pg) facets = facets.modifyEnd(sql`without rowid`)
  await facets.execute()
  await db.schema
    .createIndex('expert_facets_value')
    .on('expert_facets')
    .columns(['org_id', 'facet', 'value_key', 'expert_id'])
    .execute()

  // Experts per facet value and flag combination, kept by triggers on expert_facets (cascaded deletes
  // included): the counts of a search filtered only by access and status, read without a scan.
  await db.schema
    .createTable('expert_facet_counts')
    .addColumn('org_id', bigint(db), orgColumn)
    .addColumn('facet', 'text', (col) => col.notNull())
    .addColumn('value_key', 'text', (col) => col.notNull())
    .addColumn('is_private', 'integer', (col) => col.notNull())
    .addColumn('is_published', 'integer', (col) => col.notNull())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('count', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('expert_facet_counts_pk', [
      'org_id',
      'facet',
      'value_key',
      'is_private',
      'is_published',
    ])
    .execute()
  await (pg ? countFacetsInPostgres(db) : countFacetsInSqlite(db))

  for (const [table, owner] of [
    ['spotlight_search', 'spotlights'],
    ['question_search', 'questions'],
  ] as const) {
    let builder = db.schema
      .createTable(table)
      .addColumn(KEY_COLUMNS[table], pg ? 'bigint' : 'integer', (col) =>
        col.primaryKey().references(`${owner}.id`).onDelete('cascade'),
      )
      .addColumn('org_id', bigint(db), orgColumn)
    for (const column of TEXT_COLUMNS[table]) builder = builder.addColumn(column, 'text', text(column))
    await builder
      .addColumn('published', 'integer', (col) => col.notNull())
      .addColumn('sort_date', bigint(db), (col) => col.notNull())
      .addColumn('year', 'integer', (col) => col.notNull())
      .addColumn('month', 'integer', (col) => col.notNull())
      .execute()
    await db.schema
      .createIndex(`${table}_date`)
      .on(table)
      .columns(['org_id', 'sort_date', KEY_COLUMNS[table]])
      .execute()
  }

  for (const table of Object.keys(TEXT_COLUMNS) as (keyof typeof TEXT_COLUMNS)[]) {
    if (pg) await addPostgresDocument(db, table)
    else await addFts5Index(db, table)
  }
}

/**
 * `unaccent()` is only STABLE (its dictionary could be changed), and a generated column may only use
 * IMMUTABLE functions. Naming the dictionary explicitly, as here, fixes the result for a given input,
 * which is the usual way to index unaccented text.
 */
async function createUnaccentWrapper(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists unaccent`.execute(db)
  const { rows } = await sql<{ schema: string }>`
    select extnamespace::regnamespace::text as schema from pg_extension where extname = 'unaccent'`.execute(
    db,
  )
  const schema = rows[0]?.schema ?? 'public'
  await sql
    .raw(
      `create or replace function expertdir_unaccent(text) returns text
       language sql immutable parallel safe strict
       as $$ select ${schema}.unaccent('${schema}.unaccent'::regdictionary, $1) $$`,
    )
    .execute(db)
}

async function addPostgresDocument(db: Kysely<unknown>, table: keyof typeof TEXT_COLUMNS): Promise<void> {
  const parts = TEXT_COLUMNS[table].map(
    (column) =>
      sql`setweight(to_tsvector('simple', expertdir_unaccent(${sql.ref(column)})), ${sql.lit(PG_WEIGHTS[table][column])})`,
  )
  await sql`alter table ${sql.table(table)} add column document tsvector generated always as (${sql.join(parts, sql` || `)}) stored`.execute(
    db,
  )
  await sql`create index ${sql.id(`${table}_document`)} on ${sql.table(table)} using gin (document)`.execute(
    db,
  )
}

async function addFts5Index(db: Kysely<unknown>, table: keyof typeof TEXT_COLUMNS): Promise<void> {
  const fts = `${table}_fts`
  const key = KEY_COLUMNS[table]
  const columns = TEXT_COLUMNS[table].join(', ')
  const values = (row: 'new' | 'old') => TEXT_COLUMNS[table].map((column) => `${row}.${column}`).join(', ')
  const statements = [
    `create virtual table ${fts} using fts5(${columns}, content = '${table}', content_rowid = '${key}', ${FTS_TOKENIZER})`,
    `create trigger ${table}_ai after insert on ${table} begin
       insert into ${fts}(rowid, ${columns}) values (new.${key}, ${values('new')}); end`,
    `create trigger ${table}_ad after delete on ${table} begin
       insert into ${fts}(${fts}, rowid, ${columns}) values ('delete', old.${key}, ${values('old')}); end`,
    `create trigger ${table}_au after update on ${table} begin
       insert into ${fts}(${fts}, rowid, ${columns}) values ('delete', old.${key}, ${values('old')});
       insert into ${fts}(rowid, ${columns}) values (new.${key}, ${values('new')}); end`,
  ]
  for (const statement of statements) await sql.raw(statement).execute(db)
}

const FACET_KEY = ['org_id', 'facet', 'value_key', 'is_private', 'is_published']
const matchesRow = (row: 'new' | 'old') =>
  FACET_KEY.map((column) => `${column} = ${row}.${column}`).join(' and ')

async function countFacetsInSqlite(db: Kysely<unknown>): Promise<void> {
  const columns = FACET_KEY.join(', ')
  const values = FACET_KEY.map((column) => `new.${column}`).join(', ')
  await sql
    .raw(`create trigger expert_facets_count_ai after insert on expert_facets begin
      insert or ignore into expert_facet_counts (${columns}, value, count) values (${values}, new.value, 0);
      update expert_facet_counts set count = count + 1 where ${matchesRow('new')}; end`)
    .execute(db)
  await sql
    .raw(`create trigger expert_facets_count_ad after delete on expert_facets begin
      update expert_facet_counts set count = count - 1 where ${matchesRow('old')}; end`)
    .execute(db)
}

/**
 * PostgreSQL: statement-level triggers add up each statement's rows per value first, then change each
 * counter once, in key order. Row-level counting would update a hot counter row once per expert (a
 * long version chain inside one bulk transaction) and let two writers lock counters in opposite
 * orders (a deadlock). A delete only updates: when an organization is deleted its counters may
 * already be gone.
 */
async function countFacetsInPostgres(db: Kysely<unknown>): Promise<void> {
  const columns = FACET_KEY.join(', ')
  const sameKey = FACET_KEY.map((column) => `c.${column} = d.${column}`).join(' and ')
  await sql
    .raw(`create function expert_facets_count_insert() returns trigger language plpgsql as $$
    begin
      insert into expert_facet_counts as c (${columns}, value, count)
        select ${columns}, min(value), count(*) from added group by ${columns} order by ${columns}
        on conflict (${columns}) do update set count = c.count + excluded.count;
      return null;
    end $$`)
    .execute(db)
  await sql
    .raw(`create function expert_facets_count_delete() returns trigger language plpgsql as $$
    begin
      perform 1 from expert_facet_counts c join (select distinct ${columns} from removed) d using (${columns})
        order by ${FACET_KEY.map((column) => `c.${column}`).join(', ')} for update of c;
      update expert_facet_counts c set count = c.count - d.n
        from (select ${columns}, count(*) as n from removed group by ${columns}) d where ${sameKey};
      return null;
    end $$`)
    .execute(db)
  for (const [operation, rows] of [
    ['insert', 'new table as added'],
    ['delete', 'old table as removed'],
  ] as const) {
    await sql
      .raw(`create trigger expert_facets_count_${operation} after ${operation} on expert_facets
        referencing ${rows} for each statement execute function expert_facets_count_${operation}()`)
      .execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const pg = isPostgres(db)
  for (const table of Object.keys(TEXT_COLUMNS)) {
    if (!pg) await sql.raw(`drop table if exists ${table}_fts`).execute(db)
    await db.schema.dropTable(table).execute()
  }
  await db.schema.dropTable('expert_facets').execute()
  await db.schema.dropTable('expert_facet_counts').execute()
  if (pg) await sql`drop function if exists expert_facets_count_insert()`.execute(db)
  if (pg) await sql`drop function if exists expert_facets_count_delete()`.execute(db)
  if (pg) await sql`drop function if exists expertdir_unaccent(text)`.execute(db)
}
