import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Queryable } from '../db/database.js'
import type { ProfileType } from '../db/schema.js'
import { type Audience, audienceOf } from '../derived/audience.js'
import { findExpertDocument } from '../derived/read-documents.js'
import { ApiError } from '../errors.js'
import type { WriteCondition } from '../experts/service.js'
import { ok, Success } from '../http/envelope.js'
import { etagOf } from '../http/etag.js'
import { Profile, type ProfileData, readProfile } from './read.js'

/**
 * `If-Match` on profile writes (RFC 9110 §13.1.1): the writer names the ETag it read the profile at,
 * and the write goes ahead only while the profile still has it. The check runs inside the write's
 * transaction, after the profile's row is locked (`WriteCondition`), so no other write slips in between.
 */

/** The profile read's response, as the read route serializes it: the ETag is the hash of these bytes. */
export const ProfileResponse = Success(Profile)

const ENTITY_TAG = /^(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")$/

/**
 * The `If-Match` check of a write of the profile `type`/`username` (its name before the write), or
 * undefined when there is nothing to check (no header, or `*`). The tags are compared with the ETag the
 * token's own read gets (`read` and `read:public` read different documents). A weak tag is compared by
 * its opaque part: ours are strong, and a proxy that compresses a read may weaken it on the way to the
 * client without changing what it names.
 */
export function profileCondition(
  request: FastifyRequest,
  reply: FastifyReply,
  orgId: number,
  type: ProfileType,
  username: string,
): WriteCondition | undefined {
  const header = request.headers['if-match']
  if (header === undefined) return undefined
  const parts = header.split(',').map((part) => part.trim())
  if (parts.length === 1 && parts[0] === '*') return undefined
  const tags = parts.map((part) => ENTITY_TAG.exec(part)?.[1])
  if (tags.some((tag) => tag === undefined))
    throw new ApiError(
      'invalid_request',
      'If-Match must be * or a list of ETags as the profile read sent them.',
      {
        details: [{ field: 'If-Match', message: 'must be * or quoted ETags' }],
      },
    )
  const audience = audienceOf(request.principal.scopes)
  const serialize = reply.compileSerializationSchema({ ...ProfileResponse })
  return async (trx) => {
    const etag = await currentEtag(trx, orgId, type, username, audience, (profile) => serialize(ok(profile)))
    if (etag === undefined || !tags.includes(etag)) throw preconditionFailed()
  }
}

export function preconditionFailed(): ApiError {
  return new ApiError(
    'precondition_failed',
    'The profile was changed by someone else since it was read (If-Match no longer matches its ETag): read it again and make the change on what it is now.',
  )
}

/**
 * The ETag the profile read would send `audience` now, or undefined when that audience may not see the
 * profile. The stored read document gives it when current; otherwise the read is built as the read
 * route builds it (and not stored: a failed store would abort the write's transaction on PostgreSQL).
 */
async function currentEtag(
  trx: Queryable,
  orgId: number,
  type: ProfileType,
  username: string,
  audience: Audience,
  serialize: (profile: ProfileData) => string,
): Promise<string | undefined> {
  const [found] = await findExpertDocument(trx, orgId, username, type, audience)
  if (!found) return undefined
  return found.etag ?? etagOf(serialize(await readProfile(trx, orgId, username, type, audience)))
}
