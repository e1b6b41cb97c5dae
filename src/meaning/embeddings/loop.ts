import { createHash, randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import { keepRenewing, pollingLoop } from '../../db/leases.js'
import type { DB } from '../../db/schema.js'
import { writeTransaction } from '../../db/transactions.js'
import { embeddingTextOf } from '../../derived/meaning/fingerprint.js'
import { readMeaningInputs } from '../../derived/meaning/maintenance.js'
import { EmbeddingError, type EmbeddingProvider } from './provider.js'
import {
  type ClaimedExpert,
  claimDue,
  dropClaimed,
  dueForModel,
  type EmbeddedExpert,
  enrollExperts,
  organizationIds,
  recordFailure,
  renewLease,
  storeEmbedded,
} from './store.js'
import { vectorBytes } from './vectors.js'

/**
 * The background loop that keeps experts' embeddings current (CONTRACT §20, SOURCES §7.5), run by the
 * process that runs background work (as the works schedule). A write never calls the provider: it marks
 * the expert due (src/derived/meaning/embedding-marks.ts). Each pass enrolls experts that have no row yet,
 * then, organization by organization, takes due experts in batches under a lease, reads their texts,
 * asks the provider only for those whose text or model changed, and stores the vectors in one short
 * transaction. However many processes share the database, one takes an expert at a time; one killed
 * mid-batch stops renewing its lease, and the batch is taken again after it. A failed batch keeps its
 * error for a person (`expertdir embeddings status`) and is tried again later: after the provider's
 * `Retry-After`, else after a pause that doubles with each failure (30 s to 1 h); the pass ends there.
 */

export const EMBEDDING_LEASE_MS = 5 * 60 * 1000
const FIRST_RETRY_MS = 30_000
const LAST_RETRY_MS = 60 * 60 * 1000

type Log = { warn(object: object, message: string): void; info(object: object, message: string): void }
const silent: Log = { warn() {}, info() {} }

export interface EmbeddingLoopOptions {
  db: Kysely<DB>
  dialect: 'sqlite' | 'postgres'
  provider: EmbeddingProvider
  batchSize: number
  now?: () => number
  leaseMs?: number
  pollMs?: number
  log?: Log
}

export interface PassCounts {
  /** Experts whose vector was stored. */
  embedded: number
  /** Experts whose text and model had not changed: no request made. */
  unchanged: number
  /** Experts of failed batches. */
  failed: number
}

export interface EmbeddingLoop {
  /** Embeds every expert due now, batch by batch; stops at the first failed batch. What tests call instead of waiting. */
  runOnce(): Promise<PassCounts>
  start(): void
  /** Stops after the batch under way. */
  stop(): Promise<void>
}

export const textHash = (text: string) => createHash('sha256').update(text).digest('hex')

const retryDelay = (attempts: number) => Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** attempts)

export function createEmbeddingLoop(options: EmbeddingLoopOptions): EmbeddingLoop {
  const { db, dialect, provider, batchSize } = options
  const now = options.now ?? Date.now
  const leaseMs = options.leaseMs ?? EMBEDDING_LEASE_MS
  const log = options.log ?? silent
  let modelChecked = false
  let stopping = false

  /** One batch of one organization; false when it failed (the pass ends). */
  async function embedBatch(orgId: number, claimed: ClaimedExpert[], token: string, counts: PassCounts) {
    const ids = claimed.map((row) => row.expert_id)
    const stopRenewing = keepRenewing(
      () => renewLease(db, orgId, ids, token, now() + leaseMs),
      leaseMs,
      (error) => log.warn({ err: error, org_id: orgId }, 'could not renew an embeddings lease'),
    )
    try {
      const { experts, items, works } = await readMeaningInputs(db, orgId, ids)
      const present = new Set(experts.map((expert) => expert.id))
      await dropClaimed(
        db,
        orgId,
        ids.filter((id) => !present.has(id)),
        token,
      )
      const results: EmbeddedExpert[] = []
      const toEmbed: { claimed: ClaimedExpert; text: string; hash: string }[] = []
      for (const row of claimed) {
        if (!present.has(row.expert_id)) continue
        const text = embeddingTextOf(items.get(row.expert_id) ?? [], works.get(row.expert_id) ?? [])
        const hash = textHash(text)
        if (row.model === provider.model && row.text_hash === hash)
          results.push({ claimed: row, textHash: hash })
        else if (text === '') results.push({ claimed: row, textHash: hash, vector: null, dimensions: null })
        else toEmbed.push({ claimed: row, text, hash })
      }
      const unchanged = results.filter((result) => result.vector === undefined).length
      try {
        const vectors = toEmbed.length > 0 ? await provider.embed(toEmbed.map((entry) => entry.text)) : []
        for (const [index, entry] of toEmbed.entries()) {
          const vector = vectors[index]
          if (vector)
            results.push({
              claimed: entry.claimed,
              textHash: entry.hash,
              vector: vectorBytes(vector),
              dimensions: vector.length,
            })
        }
      } catch (error) {
        if (!(error instanceof EmbeddingError)) throw error
        const attempts = Math.max(...toEmbed.map((entry) => entry.claimed.attempts))
        await recordFailure(
          db,
          orgId,
          toEmbed.map((entry) => entry.claimed.expert_id),
          { token, message: error.message, dueAt: error.retryAt ?? now() + retryDelay(attempts) },
        )
        log.warn({ org_id: orgId, experts: toEmbed.length, error: error.message }, 'embedding experts failed')
        counts.failed += toEmbed.length
        await writeTransaction(db, (trx) =>
          storeEmbedded(trx, orgId, results, { token, model: provider.model, now: now() }),
        )
        counts.unchanged += unchanged
        return false
      }
      const stored = await writeTransaction(db, (trx) =>
        storeEmbedded(trx, orgId, results, { token, model: provider.model, now: now() }),
      )
      counts.embedded += stored
      counts.unchanged += unchanged
      return true
    } finally {
      stopRenewing()
    }
  }

  async function runOnce(): Promise<PassCounts> {
    const counts: PassCounts = { embedded: 0, unchanged: 0, failed: 0 }
    await enrollExperts(db, now())
    if (!modelChecked) {
      await dueForModel(db, provider.model, now())
      modelChecked = true
    }
    for (const orgId of await organizationIds(db)) {
      for (;;) {
        if (stopping) return counts
        const token = randomUUID()
        const claimed = await claimDue(db, dialect, orgId, { now: now(), leaseMs, limit: batchSize, token })
        if (claimed.length === 0) break
        if (!(await embedBatch(orgId, claimed, token, counts))) return counts
        if (claimed.length < batchSize) break
      }
    }
    return counts
  }

  const loop = pollingLoop(
    async () => {
      const counts = await runOnce()
      if (counts.embedded > 0) log.info({ ...counts }, 'experts embedded')
      return false
    },
    options.pollMs ?? 10_000,
    (error) => log.warn({ err: error }, 'embeddings pass failed; retrying shortly'),
  )

  return {
    runOnce,
    start() {
      stopping = false
      loop.start()
    },
    async stop() {
      stopping = true
      await loop.stop()
    },
  }
}
