import type { ControlledTransaction, Kysely, Transaction } from 'kysely'
import type { DB } from './schema.js'
import { isRetryableWriteFailure } from './transactions.js'

/**
 * One request's writes: run on a shared batch transaction, inside a savepoint of its own (on
 * PostgreSQL first without one: see `optimistic`). A unit must let a database error propagate, never
 * swallow it: on PostgreSQL a failed statement aborts the transaction, and only a thrown error rolls
 * the batch back before its `COMMIT`.
 */
export type CommitUnit<T> = (trx: Transaction<DB>) => Promise<T>

/** What the queue has committed so far: tests read it to see that batches really form. */
export interface CommitStats {
  /** Batch transactions run (a failed one included). */
  batches: number
  /** Units in those batches, failed ones included. */
  units: number
  /** The most units one batch held. */
  largestBatch: number
}

/**
 * Group commit: concurrent writers share one transaction, so one commit (one fsync) makes all of
 * them durable. `run` resolves only after the batch that held the unit has committed.
 */
export interface CommitQueue {
  /**
   * Runs `unit` in the next batch. A unit that throws is rolled back alone (to its savepoint) and
   * its promise rejects with its own error; the others of the batch still commit. When the commit
   * itself fails, every unit of the batch rejects with that error.
   */
  run<T>(unit: CommitUnit<T>): Promise<T>
  /** Resolves once nothing is queued or being committed (shutdown flushes through this). */
  idle(): Promise<void>
  /** Calls `listener` after every batch (the server logs each at debug level). */
  observe(listener: (batch: BatchReport) => void): void
  readonly stats: Readonly<CommitStats>
}

/** One finished batch: how many units it held, how many failed, and whether it committed. */
export interface BatchReport {
  units: number
  failed: number
  committed: boolean
}

export interface CommitQueueOptions {
  /** The most units one batch takes; 1 gives every unit its own transaction. */
  maxBatch: number
  /** Batches in flight at once. SQLite has one writer: 1. */
  concurrency?: number
  /**
   * Run each batch first without savepoints, again with them only when a unit failed: for databases
   * where each savepoint command is a round trip (PostgreSQL).
   */
  optimistic?: boolean
}

interface Queued {
  unit: CommitUnit<unknown>
  resolve(value: unknown): void
  reject(error: unknown): void
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

/** A unit of a batch and, once run, its outcome. */
interface Slot {
  entry: Queued
  outcome?: Outcome
}

const SAVEPOINT = 'unit'
/** A unit rolled back for a concurrent writer runs once more, within the same batch. */
const UNIT_ATTEMPTS = 2

export function createCommitQueue(db: Kysely<DB>, options: CommitQueueOptions): CommitQueue {
  const maxBatch = Math.max(1, options.maxBatch)
  const concurrency = Math.max(1, options.concurrency ?? 1)
  const optimistic = options.optimistic ?? false
  const queue: Queued[] = []
  const stats: CommitStats = { batches: 0, units: 0, largestBatch: 0 }
  let inFlight = 0
  let scheduled = false
  let waitingForIdle: (() => void)[] = []
  const listeners: ((batch: BatchReport) => void)[] = []

  /**
   * Starts a batch on the next turn of the event loop (setImmediate, no timer): the requests whose
   * bytes arrived in the same I/O phase are in the queue by then, so a burst shares one commit while
   * a lone request waits for nothing but the current commit.
   */
  function schedule(): void {
    if (scheduled || queue.length === 0 || inFlight >= concurrency) return
    scheduled = true
    setImmediate(() => {
      scheduled = false
      if (queue.length === 0 || inFlight >= concurrency) return
      inFlight++
      void commitBatch().finally(() => {
        inFlight--
        schedule()
        if (inFlight === 0 && queue.length === 0) {
          for (const resolve of waitingForIdle) resolve()
          waitingForIdle = []
        }
      })
      schedule()
    })
  }

  /**
   * Runs a batch of queued units, then commits. Optimistic (PostgreSQL): first without savepoints,
   * two round trips fewer per unit; when a unit fails, the whole transaction is rolled back (nothing
   * of it is written) and the same units run again, each in its own savepoint.
   */
  async function commitBatch(): Promise<void> {
    const batch: Slot[] = []
    let result = optimistic ? await runBatch(batch, false) : 'again'
    if (result === 'again') result = await runBatch(batch, true)
    stats.batches++
    stats.units += batch.length
    stats.largestBatch = Math.max(stats.largestBatch, batch.length)
    let failed = 0
    for (const { entry, outcome } of batch) {
      if (outcome?.ok) entry.resolve(outcome.value)
      else {
        failed++
        entry.reject(outcome?.error)
      }
    }
    for (const listener of listeners)
      listener({ units: batch.length, failed, committed: result === 'committed' })
  }

  /**
   * Runs the units of `batch`, then takes queued ones (late arrivals too) up to `maxBatch`, one after
   * the other on one transaction, and commits; each slot gets its outcome. Not `isolated` (no
   * savepoints): when a unit fails, everything is rolled back, the outcomes are cleared and the
   * answer is `again`: the batch must run again isolated.
   */
  async function runBatch(batch: Slot[], isolated: boolean): Promise<'committed' | 'failed' | 'again'> {
    let trx: ControlledTransaction<DB> | undefined
    try {
      trx = await db.startTransaction().execute()
      for (let i = 0; ; i++) {
        let slot = batch[i]
        if (!slot) {
          const entry = batch.length < maxBatch ? queue.shift() : undefined
          if (!entry) break
          slot = { entry }
          batch.push(slot)
        }
        if (isolated) slot.outcome = await runUnit(trx, slot.entry.unit)
        else {
          try {
            slot.outcome = { ok: true, value: await slot.entry.unit(trx) }
          } catch {
            await trx.rollback().execute()
            for (const each of batch) each.outcome = undefined
            return 'again'
          }
        }
      }
      await trx.commit().execute()
      return 'committed'
    } catch (error) {
      await trx
        ?.rollback()
        .execute()
        .catch(() => {})
      // A unit's own error stands; the others were rolled back with the batch.
      for (const slot of batch) if (slot.outcome?.ok !== false) slot.outcome = { ok: false, error }
      // Not even begun: the first waiting unit gets the error, the others try again in the next batch.
      const head = batch.length === 0 ? queue.shift() : undefined
      if (head) batch.push({ entry: head, outcome: { ok: false, error } })
      return 'failed'
    }
  }

  /**
   * The unit inside its savepoint. Only a failure of the savepoint commands themselves throws. A unit
   * the database rolled back for a concurrent writer (a PostgreSQL deadlock between two batches) runs
   * once more in a fresh savepoint: rolled back to its savepoint, it left nothing behind, and nothing
   * of the batch has committed yet. A second such failure is the unit's error (a 503).
   */
  async function runUnit(trx: ControlledTransaction<DB>, unit: CommitUnit<unknown>): Promise<Outcome> {
    let outcome: Outcome
    for (let attempt = 1; ; attempt++) {
      const point = await trx.savepoint(SAVEPOINT).execute()
      try {
        outcome = { ok: true, value: await unit(point) }
      } catch (error) {
        await point.rollbackToSavepoint(SAVEPOINT).execute()
        outcome = { ok: false, error }
      }
      await point.releaseSavepoint(SAVEPOINT).execute()
      if (outcome.ok || attempt >= UNIT_ATTEMPTS || !isRetryableWriteFailure(outcome.error)) return outcome
    }
  }

  return {
    run<T>(unit: CommitUnit<T>) {
      return new Promise<T>((resolve, reject) => {
        queue.push({ unit, resolve: resolve as (value: unknown) => void, reject })
        schedule()
      })
    },
    idle() {
      if (inFlight === 0 && queue.length === 0) return Promise.resolve()
      return new Promise<void>((resolve) => waitingForIdle.push(resolve))
    },
    observe(listener) {
      listeners.push(listener)
    },
    stats,
  }
}
