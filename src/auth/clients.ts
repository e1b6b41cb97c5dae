import type { Queryable } from '../db/database.js'
import type { ClientRow } from '../db/schema.js'
import { DEFAULT_SCOPES, formatScopes, type Scope } from './scopes.js'
import { hashSecret, randomToken } from './secrets.js'

export interface IssuedClient {
  client_id: string
  /** Shown once; only its scrypt hash is stored. */
  client_secret: string
  org: number
  /** The scopes the client may request, space-separated. */
  scope: string
}

export async function createClient(
  db: Queryable,
  orgId: number,
  label: string | null,
  now: number,
  scopes: readonly Scope[] = DEFAULT_SCOPES,
): Promise<IssuedClient> {
  const clientId = `cl_${randomToken(12)}`
  const clientSecret = randomToken(32)
  const scope = formatScopes(scopes)
  await db
    .insertInto('clients')
    .values({
      client_id: clientId,
      org_id: orgId,
      label,
      secret_hash: await hashSecret(clientSecret),
      created_at: now,
      revoked_at: null,
      scope,
    })
    .execute()
  return { client_id: clientId, client_secret: clientSecret, org: orgId, scope }
}

export async function findClient(db: Queryable, clientId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('client_id', '=', clientId).executeTakeFirst()
}

export async function listClients(db: Queryable, orgId: number) {
  return db
    .selectFrom('clients')
    .select(['client_id', 'label', 'scope', 'created_at', 'revoked_at'])
    .where('org_id', '=', orgId)
    .orderBy('created_at')
    .execute()
}

/** Revokes a client and deletes every token it holds. Returns false when there is no such client. */
export async function revokeClient(db: Queryable, clientId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('clients')
    .set({ revoked_at: now })
    .where('client_id', '=', clientId)
    .executeTakeFirst()
  await db.deleteFrom('access_tokens').where('client_id', '=', clientId).execute()
  return Number(result.numUpdatedRows) > 0
}
