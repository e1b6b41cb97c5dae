import { type Kysely, sql } from 'kysely'
import type { Queryable } from '../../db/database.js'
import type { DB } from '../../db/schema.js'

/**
 * The embedding loop's reads and writes of `expert_embeddings` (migration 0031). A process takes due
 * experts of one organization under a lease (`locked_until`, `lock_token`) in one statement (PostgreSQL:
 * `FOR UPDATE SKIP LOCKED`; SQLite: one writer at a time), as the works schedule does; every later write
 * names the token, so a process that lost its lease writes nothing. A vector is stored for the `version`
 * the process read: when a write bumped it meanwhile, `due_at` stays and the expert is embedded again.
 */

export interface ClaimedExpert {
  expert_id: number
  version: number
  model: string | null
  text_hash: string | null
  attempts: number
}

/** Puts every expert without a row in the table, due now. */
export async function enrollExperts(db: Kysely<DB>, now: number): Promise<void> {
  await db
    .insertInto('expert_embeddings')
    .columns(['org_id', 'expert_id', 'due_at'])
    .expression((eb) =>
      eb
        .selectFrom('experts')
        .select(['experts.org_id', 'experts.id', sql<number>`${now}`.as('due_at')])
        .where('experts.type', '=', 'expert')
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('expert_embeddings')
                .select('expert_embeddings.expert_id')
                .whereRef('expert_embeddings.org_id', '=', 'experts.org_id')
                .whereRef('expert_embeddings.expert_id', '=', 'experts.id'),
            ),
          ),
        ),
    )
    .onConflict((conflict) => conflict.columns(['org_id', 'expert_id']).doNothing())
    .execute()
}

/** Makes due the experts whose vector was made by another model than `model`. */
export async function dueForModel(db: Kysely<DB>, model: string, now: number): Promise<void> {
  await db
    .updateTable('expert_embeddings')
    .set({ due_at: now })
    .where('due_at', 'is', null)
    .where('model', 'is not', null)
    .where('model', '!=', model)
    .execute()
}

export async function organizationIds(db: Kysely<DB>): Promise<number[]> {
  const rows = await db.selectFrom('organizations').select('id').orderBy('id').execute()
  return rows.map((row) => Number(row.id))
}

/** Takes up to `limit` due experts of `orgId` under the lease `token`; none that another process holds. */
export async function claimDue(
  db: Kysely<DB>,
  dialect: 'sqlite' | 'postgres',
  orgId: number,
  { now, leaseMs, limit, token }: { now: number; leaseMs: number; limit: number; token: string },
): Promise<ClaimedExpert[]> {
  let due = db
    .selectFrom('expert_embeddings')
    .select('expert_id')
    .where('org_id', '=', orgId)
    .where('due_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .orderBy('due_at')
    .orderBy('expert_id')
    .limit(limit)
  if (dialect === 'postgres') due = due.forUpdate().skipLocked()
  const rows = await db
    .updateTable('expert_embeddings')
    .set({ locked_until: now + leaseMs, lock_token: token })
    .where('org_id', '=', orgId)
    .where('expert_id', 'in', due)
    // Checked again on the row itself: a concurrent claim that committed first has set the lease.
    .where('due_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returning(['expert_id', 'version', 'model', 'text_hash', 'attempts'])
    .execute()
  return rows
    .map((row) => ({ ...row, expert_id: Number(row.expert_id), version: Number(row.version) }))
    .sort((a, b) => a.expert_id - b.expert_id)
}

export async function renewLease(
  db: Kysely<DB>,
  orgId: number,
  expertIds: readonly number[],
  token: string,
  until: number,
): Promise<void> {
  await db
    .updateTable('expert_embeddings')
    .set({ locked_until: until })
    .where('org_id', '=', orgId)
    .where('expert_id', 'in', expertIds)
    .where('lock_token', '=', token)
    .execute()
}

/** What the loop stores for one expert: a vector (null when the expert has no text) and its text's hash. */
export interface EmbeddedExpert {
  claimed: ClaimedExpert
  textHash: string
  /** Absent: the stored vector is still the right one (same text, same model). */
  vector?: Uint8Array | null
  dimensions?: number | null
}

/**
 * Stores the loop's results under its lease and releases them; `due_at` is cleared only where no write
 * bumped `version` since the claim. The organization's `embedding_stats` moves when a vector changed.
 */
export async function storeEmbedded(
  trx: Queryable,
  orgId: number,
  results: readonly EmbeddedExpert[],
  { token, model, now }: { token: string; model: string; now: number },
): Promise<number> {
  let stored = 0
  for (const { claimed, textHash, vector, dimensions } of results) {
    const changed = await trx
      .updateTable('expert_embeddings')
      .set({
        ...(vector === undefined
          ? {}
          : { vector, dimensions: dimensions ?? null, model, text_hash: textHash, embedded_at: now }),
        due_at: sql<number | null>`case when version = ${claimed.version} then null else due_at end`,
        attempts: 0,
        error: null,
        locked_until: null,
        lock_token: null,
      })
      .where('org_id', '=', orgId)
      .where('expert_id', '=', claimed.expert_id)
      .where('lock_token', '=', token)
      .executeTakeFirst()
    if (vector !== undefined && Number(changed.numUpdatedRows) > 0) stored++
  }
  if (stored > 0)
    await trx
      .insertInto('embedding_stats')
      .values({ org_id: orgId, version: 1 })
      .onConflict((conflict) =>
        conflict.column('org_id').doUpdateSet((eb) => ({ version: eb('embedding_stats.version', '+', 1) })),
      )
      .execute()
  return stored
}

/** Drops the rows of claimed ids that are no expert any more (turned staff); a delete cascades by itself. */
export async function dropClaimed(
  db: Kysely<DB>,
  orgId: number,
  expertIds: readonly number[],
  token: string,
): Promise<void> {
  if (expertIds.length === 0) return
  await db
    .deleteFrom('expert_embeddings')
    .where('org_id', '=', orgId)
    .where('expert_id', 'in', expertIds)
    .where('lock_token', '=', token)
    .execute()
}

/** A failed batch: its error for a person to read, and when it is tried again. */
export async function recordFailure(
  db: Kysely<DB>,
  orgId: number,
  expertIds: readonly number[],
  { token, message, dueAt }: { token: string; message: string; dueAt: number },
): Promise<void> {
  if (expertIds.length === 0) return
  await db
    .updateTable('expert_embeddings')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      error: message,
      due_at: dueAt,
      locked_until: null,
      lock_token: null,
    }))
    .where('org_id', '=', orgId)
    .where('expert_id', 'in', expertIds)
    .where('lock_token', '=', token)
    .execute()
}

export interface EmbeddingStatus {
  org_id: number
  /** Experts the loop has enrolled. */
  experts: number
  /** Experts with a vector of `model`. */
  embedded: number
  /** Experts due to be embedded (again), failing ones included. */
  due: number
  /** Experts whose last attempt failed. */
  failing: number
  /** The most recent failure's message, if any expert is failing. */
  last_error: string | null
  /** When the latest vector was stored (unix ms). */
  last_embedded_at: number | null
}

/** Per organization (or `orgId` alone): how far the embeddings are, and the last error. */
export async function embeddingStatus(
  db: Kysely<DB>,
  model: string,
  orgId?: number,
): Promise<EmbeddingStatus[]> {
  let query = db
    .selectFrom('expert_embeddings')
    .select((eb) => [
      'org_id',
      eb.fn.countAll().as('experts'),
      eb.fn.sum(eb.case().when('model', '=', model).then(1).else(0).end()).as('embedded'),
      eb.fn.sum(eb.case().when('due_at', 'is not', null).then(1).else(0).end()).as('due'),
      eb.fn.sum(eb.case().when('attempts', '>', 0).then(1).else(0).end()).as('failing'),
      eb.fn.max('embedded_at').as('last_embedded_at'),
    ])
    .groupBy('org_id')
    .orderBy('org_id')
  if (orgId !== undefined) query = query.where('org_id', '=', orgId)
  const rows = await query.execute()
  const statuses: EmbeddingStatus[] = []
  for (const row of rows) {
    const failed = await db
      .selectFrom('expert_embeddings')
      .select('error')
      .where('org_id', '=', row.org_id)
      .where('attempts', '>', 0)
      .orderBy('due_at', 'desc')
      .limit(1)
      .executeTakeFirst()
    statuses.push({
      org_id: Number(row.org_id),
      experts: Number(row.experts),
      embedded: Number(row.embedded ?? 0),
      due: Number(row.due ?? 0),
      failing: Number(row.failing ?? 0),
      last_error: failed?.error ?? null,
      last_embedded_at: row.last_embedded_at === null ? null : Number(row.last_embedded_at),
    })
  }
  return statuses
}

/** The organization's `embedding_stats` counter (0 before any vector). */
export async function readEmbeddingsVersion(db: Queryable, orgId: number): Promise<number> {
  const row = await db
    .selectFrom('embedding_stats')
    .select('version')
    .where('org_id', '=', orgId)
    .executeTakeFirst()
  return Number(row?.version ?? 0)
}

/** Every vector of `model` in the organization, by expert id. */
export async function readVectors(db: Queryable, orgId: number, model: string) {
  const rows = await db
    .selectFrom('expert_embeddings')
    .select(['expert_id', 'vector'])
    .where('org_id', '=', orgId)
    .where('model', '=', model)
    .where('vector', 'is not', null)
    .orderBy('expert_id')
    .execute()
  return rows.flatMap((row) => (row.vector ? [{ expert_id: Number(row.expert_id), vector: row.vector }] : []))
}
