import type { Kysely } from 'kysely'
import { bigint } from './columns.js'

/**
 * The media desk's availability on the expert's account (CONTRACT §22), with what a media kit shows:
 *
 * - `media_available` (1/0) and `media_available_until` (unix milliseconds, or null: open-ended); once
 *   the time has passed, the expiry pass sets `media_available` to 0 (src/experts/media-expiry.ts);
 *   `media_available_since` (unix milliseconds): when the expert last became available, where the
 *   calendars' availability events start;
 * - `interview_languages`: a JSON array of canonical BCP 47 tags; `remote_ready`, `studio_ready` (1/0);
 *   `time_zone`: an IANA zone name, or null;
 * - `pronunciation` and `pronouns`: free text, or null.
 *
 * The expiry pass finds the open windows by `media_available_until`, hence the index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['media_available', 'remote_ready', 'studio_ready'])
    await db.schema
      .alterTable('experts')
      .addColumn(column, 'integer', (col) => col.notNull().defaultTo(0))
      .execute()
  for (const column of ['media_available_until', 'media_available_since'])
    await db.schema.alterTable('experts').addColumn(column, bigint(db)).execute()
  await db.schema
    .alterTable('experts')
    .addColumn('interview_languages', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute()
  for (const column of ['time_zone', 'pronunciation', 'pronouns'])
    await db.schema.alterTable('experts').addColumn(column, 'text').execute()
  await db.schema
    .createIndex('experts_media_available_until')
    .on('experts')
    .column('media_available_until')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('experts_media_available_until').execute()
  for (const column of [
    'media_available',
    'media_available_until',
    'media_available_since',
    'interview_languages',
    'remote_ready',
    'studio_ready',
    'time_zone',
    'pronunciation',
    'pronouns',
  ])
    await db.schema.alterTable('experts').dropColumn(column).execute()
}
