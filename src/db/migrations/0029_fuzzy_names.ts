import { type Kysely, sql } from 'kysely'
import { isPostgres } from './columns.js'

/**
 * Names found with typos and without accents (CONTRACT §20, docs/api.md "Search"): each index row keeps
 * its profile's first and last name lower-cased and unaccented (`name_key`, written by the indexer), and
 * each database finds the names that share trigrams with a query. PostgreSQL: pg_trgm's `%` operator over
 * a GIN `gin_trgm_ops` index (unaccent() is not IMMUTABLE, hence the stored column). SQLite: an FTS5
 * table with the `trigram` tokenizer, kept by triggers, over the key padded as pg_trgm pads each word
 * (two spaces before, one after), so that every trigram pg_trgm takes from a name is a substring there.
 *
 * Schema only: `name_key` is null on the rows that predate it, and the step after the migrations
 * (src/derived/search-rebuild.ts) rebuilds every organization holding such a row.
 */

const SQLITE_TRIGGERS = ['expert_name_trigrams_ai', 'expert_name_trigrams_ad', 'expert_name_trigrams_au']

/** The key as the FTS table holds it: "zoe muller" -> "  zoe   muller ". */
const padded = (row: 'new' | 'old') => `'  ' || replace(${row}.name_key, ' ', '   ') || ' '`

export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = isPostgres(db)
  if (pg) {
    await sql`create extension if not exists pg_trgm`.execute(db)
    await sql`create extension if not exists unaccent`.execute(db)
  }
  await db.schema.alterTable('expert_search').addColumn('name_key', 'text').execute()
  // The rows the step after the migrations must fill: none once it has run, so its check reads an empty index.
  await db.schema
    .createIndex('expert_search_unnamed')
    .on('expert_search')
    .column('org_id')
    .where(sql.ref('name_key'), 'is', null)
    .execute()
  if (pg) {
    await sql`create index expert_search_name_trigrams on expert_search using gin (name_key gin_trgm_ops)`.execute(
      db,
    )
    return
  }
  const statements = [
    `create virtual table expert_name_trigrams using fts5(name, tokenize = 'trigram remove_diacritics 1')`,
    `create trigger expert_name_trigrams_ai after insert on expert_search when new.name_key is not null begin
       insert into expert_name_trigrams(rowid, name) values (new.expert_id, ${padded('new')}); end`,
    `create trigger expert_name_trigrams_ad after delete on expert_search begin
       delete from expert_name_trigrams where rowid = old.expert_id; end`,
    `create trigger expert_name_trigrams_au after update of name_key on expert_search begin
       delete from expert_name_trigrams where rowid = old.expert_id;
       insert into expert_name_trigrams(rowid, name) select new.expert_id, ${padded('new')}
         where new.name_key is not null; end`,
  ]
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const pg = isPostgres(db)
  if (pg) await sql`drop index if exists expert_search_name_trigrams`.execute(db)
  else {
    for (const trigger of SQLITE_TRIGGERS) await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db)
    await sql`drop table if exists expert_name_trigrams`.execute(db)
  }
  await db.schema.dropIndex('expert_search_unnamed').execute()
  await db.schema.alterTable('expert_search').dropColumn('name_key').execute()
  if (pg) await sql`drop extension if exists pg_trgm`.execute(db)
}
