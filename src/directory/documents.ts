import { readQuestion as readQuestionItem, readSpotlight } from '../content/read.js'
import type { Queryable } from '../db/database.js'
import type { DocumentLookup } from '../derived/read-documents.js'
import { readProfile } from '../profiles/read.js'
import type { ProfileRead, QuestionRead, SpotlightRead } from './pages.js'

/**
 * What a page shows, as the API serves it to a `read:public` reader: the stored read document when it
 * is current (the lookup found it, so no further query), else read afresh. Pages never store a document:
 * the stored ones are the API's bytes, made by its own serializers.
 */

/** The `data` of a stored API document (`{"success": true, "data": ...}`). */
function storedData(found: DocumentLookup): unknown {
  if (found.body === null) return undefined
  const document: unknown = JSON.parse(found.body.toString('utf8'))
  return typeof document === 'object' && document !== null && 'data' in document ? document.data : undefined
}

/*
 * The reads below are the API's read results, whose OpenAPI schemas generated the client package's
 * types; they are built by the same code (or are its stored bytes), hence the one assertion each.
 */

export async function readPublicProfile(
  db: Queryable,
  orgId: number,
  username: string,
  found: DocumentLookup,
): Promise<ProfileRead> {
  const data = storedData(found) ?? (await readProfile(db, orgId, username, 'expert', 'public'))
  return data as ProfileRead
}

export async function readPost(
  db: Queryable,
  orgId: number,
  id: number,
  found: DocumentLookup,
): Promise<SpotlightRead> {
  return (storedData(found) ?? (await readSpotlight(db, orgId, id, 'public'))) as SpotlightRead
}

export async function readQuestion(
  db: Queryable,
  orgId: number,
  id: number,
  found: DocumentLookup,
): Promise<QuestionRead> {
  return (storedData(found) ?? (await readQuestionItem(db, orgId, id, 'public'))) as QuestionRead
}
