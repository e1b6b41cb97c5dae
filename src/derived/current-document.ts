import type { Queryable } from '../db/database.js'
import type { Audience, DocumentKind } from '../db/schema.js'
import { etagOf } from '../http/etag.js'
import { type DocumentLookup, storeDocument } from './read-documents.js'

/** A read's response body, as sent, with its ETag. */
export interface ReadDocument {
  body: Buffer
  etag: string
}

/**
 * The stored document when it is current; otherwise `build` makes the body (the builder run after
 * the versions were read sees data at least that new), and it is stored under those versions, for
 * `audience` alone: what one audience's reader is served was built for that audience.
 */
export async function currentDocument(
  db: Queryable,
  kind: DocumentKind,
  orgId: number,
  audience: Audience,
  found: DocumentLookup,
  build: () => Promise<string | Buffer | ArrayBuffer>,
): Promise<ReadDocument> {
  if (found.body !== null && found.etag !== null) return { body: found.body, etag: found.etag }
  const built = await build()
  const body =
    typeof built === 'string' ? Buffer.from(built) : Buffer.isBuffer(built) ? built : Buffer.from(built)
  const etag = etagOf(body)
  // The body is right whether or not it is kept: a store that fails (SQLite busy with another process's
  // write, the organization deleted meanwhile) costs the next reader a rebuild, not this reader a 503.
  await storeDocument(db, {
    kind,
    record_id: found.id,
    audience,
    org_id: orgId,
    record_version: found.version,
    org_version: found.org_version,
    etag,
    body,
  }).catch(() => {})
  return { body, etag }
}
