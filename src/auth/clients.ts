import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import type { Queryable } from '../db/database.js'
import type { ClientRow } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { DEFAULT_SCOPES, formatScopes, type Scope } from './scopes.js'
import { hashSecret, randomToken } from './secrets.js'

/**
 * Client credentials: the one write path of the CLI (`client create|revoke`) and the admin API
 * (`POST|DELETE .../client`), each write audited in its transaction.
 */

export interface IssuedClient {
  client_id: string
  /** Shown once; only its scrypt hash is stored. */
  client_secret: string
  org: number
  /** The scopes the client may request, space-separated. */
  scope: string
}

/** A new client's row and its one-time answer; the secret is hashed here, before any transaction starts. */
async function newClient(
  orgId: number,
  label: string | null,
  now: number,
  scopes: readonly Scope[],
): Promise<{ row: ClientRow; issued: IssuedClient }> {
  const clientId = `cl_${randomToken(12)}`
  const clientSecret = randomToken(32)
  const scope = formatScopes(scopes)
  return {
    row: {
      client_id: clientId,
      org_id: orgId,
      label,
      secret_hash: await hashSecret(clientSecret),
      created_at: now,
      revoked_at: null,
      scope,
    },
    issued: { client_id: clientId, client_secret: clientSecret, org: orgId, scope },
  }
}

/** Inserts a new client, unaudited (demo seeding and test fixtures; `issueClient` is the audited path). */
export async function createClient(
  db: Queryable,
  orgId: number,
  label: string | null,
  now: number,
  scopes: readonly Scope[] = DEFAULT_SCOPES,
): Promise<IssuedClient> {
  const { row, issued } = await newClient(orgId, label, now, scopes)
  await db.insertInto('clients').values(row).execute()
  return issued
}

/** Creates a client and records who did; the secret is in the answer only. */
export async function issueClient(
  { db, orgId, now, trail }: WriteContext,
  input: { label: string | null; scopes: readonly Scope[] },
): Promise<IssuedClient> {
  const { row, issued } = await newClient(orgId, input.label, now, input.scopes)
  return writeTransaction(db, async (trx) => {
    await trx.insertInto('clients').values(row).execute()
    await recordAudit(trx, orgId, trail, { kind: 'client', id: issued.client_id }, now)
    return issued
  })
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

/** Revokes a client and deletes every token it holds, in the caller's transaction. */
export async function revokeClient(db: Queryable, clientId: string, now: number): Promise<void> {
  await db
    .updateTable('clients')
    .set({ revoked_at: now })
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .execute()
  await db.deleteFrom('access_tokens').where('client_id', '=', clientId).execute()
}

/**
 * Revokes a client of the organization with every token it holds, and records who did. Revoking a
 * revoked client changes and records nothing. Returns the client as it is afterwards, or undefined when
 * the organization has no such client.
 */
export async function withdrawClient(
  { db, orgId, now, trail }: WriteContext,
  clientId: string,
): Promise<ClientRow | undefined> {
  return writeTransaction(db, async (trx) => {
    const client = await findClient(trx, clientId)
    if (!client || Number(client.org_id) !== orgId) return undefined
    if (client.revoked_at !== null) return client
    await revokeClient(trx, clientId, now)
    await recordAudit(trx, orgId, trail, { kind: 'client', id: clientId }, now)
    return { ...client, revoked_at: now }
  })
}
