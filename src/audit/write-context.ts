import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.js'
import { type AuditTrail, cliTrail } from './actor.js'
import { type AuthenticatedRequest, requestTrail } from './request.js'

/**
 * What every audited write of an organization needs: the database, the organization, the time it is
 * written at (unix milliseconds) and its trail. Services take it first, then what is specific to the write.
 */
export interface WriteContext {
  readonly db: Kysely<DB>
  readonly orgId: number
  readonly now: number
  readonly trail: AuditTrail
}

/** The write context of an API request: the app's database, the clock read now, the request's trail. */
export function writeContextOf(
  request: AuthenticatedRequest,
  app: { readonly db: Kysely<DB>; readonly now: () => number },
  orgId: number,
): WriteContext {
  return { db: app.db, orgId, now: app.now(), trail: requestTrail(request) }
}

/** The write context of a CLI command: the CLI is the actor (`cliWriteContext(db, orgId, 'people add', now)`). */
export function cliWriteContext(db: Kysely<DB>, orgId: number, command: string, now: number): WriteContext {
  return { db, orgId, now, trail: cliTrail(command) }
}
