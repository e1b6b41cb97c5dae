import { type Kysely, sql } from 'kysely'
import { bigint, isPostgres } from './columns.js'

/**
 * Usernames become unique within an organization instead of across the service, and can be renamed
 * (CONTRACT §17):
 * - `experts.username` loses its service-wide unique constraint and its reference to `usernames`; a
 *   unique index on `(org_id, username)` takes their place. Every existing username stays as it is.
 * - `usernames`, the ledger of names ever handed out (none is generated twice), gains the
 *   organization. A name of an existing expert belongs to its organization; a name only the inquiries
 *   still carry belongs to theirs; any other (an expert deleted before any inquiry) is kept reserved
 *   in every organization, since the ledger never recorded which one it was.
 * - `username_redirects`: an old name of a renamed expert, answered with 308 to its current name.
 * - `read_documents` gains the audience a document was built for (`all` for `read`, `public` for
 *   `read:public`): a reader never gets a body made for another. Stored documents are a cache, so the
 *   table is made anew; the next reads rebuild them.
 *
 * `down` makes usernames unique across organizations again: a name an organization of a lower id
 * also holds gets `-<org id>` appended (old names stop answering: their redirects go).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table experts drop constraint experts_username_fkey`.execute(db)
    await sql`alter table experts drop constraint experts_username_key`.execute(db)
  } else {
    await rebuildSqliteExperts(db, GLOBAL_USERNAME, PER_ORGANIZATION_USERNAME)
  }
  await db.schema
    .createIndex('experts_org_username')
    .on('experts')
    .columns(['org_id', 'username'])
    .unique()
    .execute()

  await db.schema
    .createTable('usernames_of_organizations')
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('username', 'text', (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addPrimaryKeyConstraint('usernames_of_organizations_pk', ['org_id', 'username'])
    .execute()
  await sql`insert into usernames_of_organizations (org_id, username, created_at)
    select e.org_id, e.username, u.created_at from experts e join usernames u on u.username = e.username`.execute(
    db,
  )
  await sql`insert into usernames_of_organizations (org_id, username, created_at)
    select distinct i.org_id, i.username, u.created_at from inquiries i
    join usernames u on u.username = i.username
    join organizations o on o.id = i.org_id
    where not exists (select 1 from usernames_of_organizations k
      where k.org_id = i.org_id and k.username = i.username)`.execute(db)
  await sql`insert into usernames_of_organizations (org_id, username, created_at)
    select o.id, u.username, u.created_at from usernames u cross join organizations o
    where not exists (select 1 from usernames_of_organizations k where k.username = u.username)`.execute(db)
  await db.schema.dropTable('usernames').execute()
  await db.schema.alterTable('usernames_of_organizations').renameTo('usernames').execute()

  await db.schema
    .createTable('username_redirects')
    .addColumn('org_id', bigint(db), (col) => col.notNull())
    .addColumn('username', 'text', (col) => col.notNull())
    .addColumn('expert_id', bigint(db), (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addPrimaryKeyConstraint('username_redirects_pk', ['org_id', 'username'])
    .execute()
  await db.schema
    .createIndex('username_redirects_expert')
    .on('username_redirects')
    .column('expert_id')
    .execute()

  await db.schema.dropTable('read_documents').execute()
  await db.schema
    .createTable('read_documents')
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('record_id', bigint(db), (col) => col.notNull())
    .addColumn('audience', 'text', (col) => col.notNull())
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('record_version', bigint(db), (col) => col.notNull())
    .addColumn('org_version', bigint(db), (col) => col.notNull())
    .addColumn('etag', 'text', (col) => col.notNull())
    .addColumn('body', isPostgres(db) ? 'bytea' : 'blob', (col) => col.notNull())
    .addPrimaryKeyConstraint('read_documents_key', ['kind', 'record_id', 'audience'])
    .execute()
  await db.schema.createIndex('read_documents_org').on('read_documents').column('org_id').execute()
}

/** The username column as migration 0001 declared it (SQLite keeps each table's DDL text), and after. */
const GLOBAL_USERNAME = '"username" text not null unique references "usernames" ("username")'
const PER_ORGANIZATION_USERNAME = '"username" text not null'

export async function down(db: Kysely<unknown>): Promise<void> {
  // Service-wide uniqueness again: a username also held in an organization of a lower id gets `-<org id>`.
  await sql`update experts set username = username || '-' || cast(org_id as text)
    where exists (select 1 from experts earlier
      where earlier.username = experts.username and earlier.org_id < experts.org_id)`.execute(db)
  await db.schema.dropTable('read_documents').execute()
  await db.schema
    .createTable('read_documents')
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('record_id', bigint(db), (col) => col.notNull())
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('record_version', bigint(db), (col) => col.notNull())
    .addColumn('org_version', bigint(db), (col) => col.notNull())
    .addColumn('etag', 'text', (col) => col.notNull())
    .addColumn('body', isPostgres(db) ? 'bytea' : 'blob', (col) => col.notNull())
    .addPrimaryKeyConstraint('read_documents_key', ['kind', 'record_id'])
    .execute()
  await db.schema.createIndex('read_documents_org').on('read_documents').column('org_id').execute()
  await db.schema.dropTable('username_redirects').execute()
  await db.schema
    .createTable('usernames_of_service')
    .addColumn('username', 'text', (col) => col.primaryKey())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .execute()
  await sql`insert into usernames_of_service (username, created_at)
    select username, min(created_at) from usernames group by username`.execute(db)
  await sql`insert into usernames_of_service (username, created_at)
    select username, created_at from experts
    where not exists (select 1 from usernames_of_service k where k.username = experts.username)`.execute(db)
  await db.schema.dropIndex('experts_org_username').execute()
  await db.schema.dropTable('usernames').execute()
  await db.schema.alterTable('usernames_of_service').renameTo('usernames').execute()
  if (isPostgres(db)) {
    await sql`alter table experts add constraint experts_username_key unique (username)`.execute(db)
    await sql`alter table experts add constraint experts_username_fkey
      foreign key (username) references usernames (username)`.execute(db)
  } else {
    await rebuildSqliteExperts(db, PER_ORGANIZATION_USERNAME, GLOBAL_USERNAME)
  }
}

/**
 * SQLite cannot drop a column constraint, so the table is rebuilt (https://sqlite.org/lang_altertable.html,
 * "Making other kinds of table schema changes"): a copy made from the stored DDL without the constraint,
 * so that columns added by any earlier migration come along. The migrator runs this with foreign keys
 * off (dropping the old table must not cascade to the profile) and checks them before it commits.
 */
async function rebuildSqliteExperts(db: Kysely<unknown>, column: string, replacement: string): Promise<void> {
  const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master where tbl_name = 'experts'`.execute(db)
  const table = rows.find((row) => row.type === 'table')?.sql ?? ''
  if (!table.includes(`${column},`)) throw new Error('experts.username is not declared as expected')
  const copy = table
    .replace(`${column},`, `${replacement},`)
    .replace(/^CREATE TABLE "experts"/, 'CREATE TABLE "experts_rebuilt"')
  const dependents = rows.filter((row) => row.type !== 'table' && row.sql !== null)
  const { rows: sequence } = await sql<{ seq: number }>`
    select seq from sqlite_sequence where name = 'experts'`.execute(db)
  await sql.raw(copy).execute(db)
  await sql`insert into experts_rebuilt select * from experts`.execute(db)
  await sql`drop table experts`.execute(db)
  await sql`alter table experts_rebuilt rename to experts`.execute(db)
  for (const dependent of dependents) await sql.raw(dependent.sql ?? '').execute(db)
  // Ids of deleted experts are not handed out again.
  const seq = sequence[0]?.seq
  if (seq !== undefined) await sql`update sqlite_sequence set seq = ${seq} where name = 'experts'`.execute(db)
}
