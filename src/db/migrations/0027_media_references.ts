import { type Kysely, sql } from 'kysely'

/**
 * Photos as media references (docs/api.md, "Photos and files"): an avatar rendition's `url` was stored
 * absolute, with the scheme, host and port of the upload (`http://127.0.0.1:3000/media/1/<name>`), so a
 * restore on another port or a move to a real domain showed every photo from the old address. It is now
 * stored as its path on the media route (`/media/1/<name>`) and given the public address when read. A
 * URL that is not one of our own files of the item's organization (an imported photo elsewhere) stays.
 *
 * Stored read documents of experts held the old URLs in their bodies: they are dropped (each is built
 * again by its next read). Down keeps the references: the address they were uploaded at is not known.
 */

/** `<anything>/media/<org>/<32 hex>[.<ext>]` at the end of an http(s) URL: one of our stored files. */
const OWN_FILE =
  /^https?:\/\/[^/?#]+(?:\/[^?#]*)?(\/media\/([1-9][0-9]{0,15})\/[0-9a-f]{32}(?:\.(?:webp|jpg|png|pdf))?)$/

function referenceOf(url: unknown, orgId: string): string | undefined {
  if (typeof url !== 'string') return undefined
  const match = OWN_FILE.exec(url)
  return match && match[2] === orgId ? match[1] : undefined
}

const PAGE = 500

export async function up(db: Kysely<unknown>): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await sql<{ id: number | string; org_id: number | string; data: string }>`
      select id, org_id, data from profile_items
      where section = 'avatar' and id > ${after} order by id limit ${PAGE}`.execute(db)
    for (const row of rows) {
      let data: unknown
      try {
        data = JSON.parse(row.data)
      } catch {
        continue
      }
      if (typeof data !== 'object' || data === null || Array.isArray(data)) continue
      let changed = false
      for (const rendition of Object.values(data as Record<string, unknown>)) {
        if (typeof rendition !== 'object' || rendition === null) continue
        const holder = rendition as Record<string, unknown>
        const reference = referenceOf(holder.url, String(row.org_id))
        if (reference === undefined) continue
        holder.url = reference
        changed = true
      }
      if (changed)
        await sql`update profile_items set data = ${JSON.stringify(data)} where id = ${row.id}`.execute(db)
    }
    const last = rows.at(-1)
    if (!last || rows.length < PAGE) break
    after = Number(last.id)
  }
  await sql`delete from read_documents where kind = 'expert'`.execute(db)
}

export async function down(_db: Kysely<unknown>): Promise<void> {}
