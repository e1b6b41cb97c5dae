import { type Kysely, sql } from 'kysely'
import { bigint, isPostgres } from './columns.js'

/**
 * Two follow-ups of the privacy and publishing rules (CONTRACT §17):
 *
 * - `inquiries.expert_id`: the recipient expert by id, so that the inbox filtered by a username finds
 *   the inquiries sent before a rename. Existing inquiries get the expert that holds their username
 *   now or, when none does, the one a rename's redirect of it leads to. No foreign key: an inquiry
 *   outlives its expert (keeping its username), and ids are never handed out again, so a deleted
 *   expert's id matches no one.
 * - `question_search.hidden_answers`: the answers of experts the public may not see, apart from the
 *   others, so that a `read:public` search neither matches nor finds them (the public's query leaves
 *   out that column; on PostgreSQL it has its own setweight letter, B). The index rows of answered
 *   questions are removed here and rebuilt by the step after the migrations (src/system/migrate.ts),
 *   which fills the new column with today's code.
 */

const FTS_TOKENIZER = "tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'"

/** The index's text columns and, on PostgreSQL, their setweight letters. */
const COLUMNS = { question: 'A', details: 'C', answers: 'D', hidden_answers: 'B' } as const
const BEFORE = { question: 'A', details: 'C', answers: 'D' } as const

async function addExpertId(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('inquiries').addColumn('expert_id', bigint(db)).execute()
  await sql`update inquiries set expert_id = coalesce(
      (select e.id from experts e
        where e.org_id = inquiries.org_id and e.username = inquiries.username and e.type = 'expert'),
      (select r.expert_id from username_redirects r
        where r.org_id = inquiries.org_id and r.username = inquiries.username))
    where username is not null`.execute(db)
  await db.schema
    .createIndex('inquiries_org_expert')
    .on('inquiries')
    .columns(['org_id', 'expert_id', 'id'])
    .execute()
}

async function postgresDocument(db: Kysely<unknown>, columns: Record<string, string>): Promise<void> {
  const parts = Object.entries(columns).map(
    ([column, weight]) =>
      sql`setweight(to_tsvector('simple', expertdir_unaccent(${sql.ref(column)})), ${sql.lit(weight)})`,
  )
  await sql`alter table question_search drop column document`.execute(db)
  await sql`alter table question_search add column document tsvector generated always as (${sql.join(parts, sql` || `)}) stored`.execute(
    db,
  )
  await sql`create index question_search_document on question_search using gin (document)`.execute(db)
}

async function sqliteIndex(db: Kysely<unknown>, columns: readonly string[]): Promise<void> {
  const list = columns.join(', ')
  const values = (row: 'new' | 'old') => columns.map((column) => `${row}.${column}`).join(', ')
  const fts = 'question_search_fts'
  const statements = [
    'drop trigger if exists question_search_ai',
    'drop trigger if exists question_search_ad',
    'drop trigger if exists question_search_au',
    `drop table if exists ${fts}`,
    `create virtual table ${fts} using fts5(${list}, content = 'question_search', content_rowid = 'question_id', ${FTS_TOKENIZER})`,
    `create trigger question_search_ai after insert on question_search begin
       insert into ${fts}(rowid, ${list}) values (new.question_id, ${values('new')}); end`,
    `create trigger question_search_ad after delete on question_search begin
       insert into ${fts}(${fts}, rowid, ${list}) values ('delete', old.question_id, ${values('old')}); end`,
    `create trigger question_search_au after update on question_search begin
       insert into ${fts}(${fts}, rowid, ${list}) values ('delete', old.question_id, ${values('old')});
       insert into ${fts}(rowid, ${list}) values (new.question_id, ${values('new')}); end`,
    `insert into ${fts}(${fts}) values ('rebuild')`,
  ]
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await addExpertId(db)

  await db.schema
    .alterTable('question_search')
    .addColumn('hidden_answers', 'text', (col) => col.notNull().defaultTo(''))
    .execute()
  // Their `answers` mixes everyone's: the step after the migrations indexes them again.
  await sql`delete from question_search where question_id in (select question_id from answers)`.execute(db)
  if (isPostgres(db)) await postgresDocument(db, COLUMNS)
  else await sqliteIndex(db, Object.keys(COLUMNS))
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from question_search where question_id in (select question_id from answers)`.execute(db)
  if (isPostgres(db)) await postgresDocument(db, BEFORE)
  else await sqliteIndex(db, Object.keys(BEFORE))
  await db.schema.alterTable('question_search').dropColumn('hidden_answers').execute()
  await db.schema.dropIndex('inquiries_org_expert').execute()
  await db.schema.alterTable('inquiries').dropColumn('expert_id').execute()
}
