import { type Database, isUniqueViolation, type Queryable } from '../db/database.js'
import type { NewInquiryRow } from '../db/schema.js'
import { notFound } from '../errors.js'
import { findExpertOrRenamed } from '../experts/repository.js'
import { blankToNull } from '../validation/fields.js'
import { propertyOf } from '../validation/guards.js'
import { normalizeLocation } from '../validation/location.js'
import { findIdempotentResponse, fingerprint, keyConflict, storeIdempotentResponse } from './idempotency.js'
import { emailRecipients, notificationFor } from './notifications.js'
import { insertInquiry } from './repository.js'
import type { InquiryInput } from './schemas.js'

export interface CreatedInquiry {
  id: number
  /** True when an Idempotency-Key matched an earlier request: nothing new was stored. */
  replayed: boolean
}

/** Request fields -> columns: "" becomes null, codes are stored upper-case (state as its short code). */
function toColumns(input: InquiryInput): Omit<NewInquiryRow, 'org_id' | 'recipients' | 'created_at'> {
  const location = normalizeLocation(input)
  return {
    kind: input.kind,
    username: input.username ?? null,
    firstname: input.firstname,
    lastname: blankToNull(input.lastname) ?? null,
    email: input.email,
    phone: blankToNull(input.phone) ?? null,
    website: blankToNull(input.website) ?? null,
    organization: blankToNull(input.organization) ?? null,
    message: input.message,
    location_city: blankToNull(input.location_city) ?? null,
    location_state: location.location_state ?? null,
    location_country: location.location_country ?? null,
    kind_fields: JSON.stringify(input.fields),
  }
}

/**
 * Stores an inquiry and its outbox rows through the group commit, with the email recipients the
 * organization's notification settings name at this moment (an inquiry without `username` goes to
 * the desk): its writes share a transaction
 * with concurrent inquiries, inside a savepoint of their own, and this returns only after that
 * transaction has committed, so an acknowledged id survives any crash. With an idempotency key, the
 * key's first response is stored with the inquiry; a retry gets that response back and stores
 * nothing. The key is looked up inside the batch, so two requests with one key in the same batch
 * behave as if sent one after the other.
 */
export async function createInquiry(
  database: Pick<Database, 'db' | 'commits'>,
  orgId: number,
  input: InquiryInput,
  idempotencyKey: string | undefined,
  now: number,
): Promise<CreatedInquiry> {
  const columns = toColumns(input)
  const print = idempotencyKey === undefined ? '' : fingerprint(`inquiry/${input.kind}`, input)

  const replay = async (db: Queryable): Promise<CreatedInquiry | undefined> => {
    if (idempotencyKey === undefined) return undefined
    const stored = await findIdempotentResponse(db, orgId, idempotencyKey, now)
    if (!stored) return undefined
    if (stored.fingerprint !== print) throw keyConflict()
    const id = propertyOf(stored.response, 'id')
    if (typeof id !== 'number') throw new Error('A stored idempotent response has no inquiry id.')
    return { id, replayed: true }
  }

  try {
    return await database.commits.run(async (trx) => {
      const earlier = await replay(trx)
      if (earlier) return earlier
      // An old username (a form made before a rename) reaches the expert under its current one.
      const expert =
        input.username === undefined ? undefined : await findExpertOrRenamed(trx, orgId, input.username)
      if (input.username !== undefined && !expert) throw notFound(`Expert ${input.username}`)
      const setting = await notificationFor(trx, orgId, input.kind)
      const id = await insertInquiry(trx, {
        ...columns,
        username: expert?.username ?? null,
        expert_id: expert?.id ?? null,
        org_id: orgId,
        recipients: JSON.stringify(emailRecipients(setting, expert)),
        created_at: now,
      })
      if (idempotencyKey !== undefined) {
        await storeIdempotentResponse(trx, orgId, idempotencyKey, print, { id }, now)
      }
      return { id, replayed: false }
    })
  } catch (error) {
    // Another process committed the same key first: answer as it did (or 409).
    if (idempotencyKey !== undefined && isUniqueViolation(error)) {
      const winner = await replay(database.db)
      if (winner) return winner
    }
    throw error
  }
}
