import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import { purgeExpiredTokens } from '../auth/tokens.js'
import type { Config } from '../config.js'
import type { DB } from '../db/schema.js'
import { purgeExpiredKeys } from '../inquiries/idempotency.js'
import { applyRetention } from '../inquiries/privacy.js'
import { purgeExpiredLinks } from '../people/links.js'
import { purgeExpiredSessions } from '../sessions/repository.js'
import { purgeExpiredSso } from '../sso/transactions.js'

/** A periodic chore: deletes what has expired and returns how many rows it removed or changed. */
export type Chore = (db: Kysely<DB>, now: number) => Promise<number>

/** What housekeeping needs to know of the configuration. */
export type HousekeepingConfig = Pick<Config, 'inquiryRetentionDays'>

/** The chores for `config`: inquiry retention only when EXPERTDIR_INQUIRY_RETENTION_DAYS is set. */
export function chores(config: HousekeepingConfig): Record<string, Chore> {
  const days = config.inquiryRetentionDays
  return {
    expired_tokens: purgeExpiredTokens,
    expired_idempotency_keys: purgeExpiredKeys,
    expired_sessions: purgeExpiredSessions,
    expired_person_links: purgeExpiredLinks,
    expired_sso_sign_ins: purgeExpiredSso,
    ...(days === undefined
      ? {}
      : { inquiry_retention: (db: Kysely<DB>, now: number) => applyRetention(db, now, days) }),
  }
}

/** Runs every chore now and then every `intervalMs`; returns a stop function. Failures are logged, not fatal. */
export function startHousekeeping(
  db: Kysely<DB>,
  log: FastifyBaseLogger,
  config: HousekeepingConfig,
  now: () => number = Date.now,
  intervalMs = 600_000,
): () => void {
  const run = async () => {
    for (const [name, chore] of Object.entries(chores(config))) {
      try {
        const removed = await chore(db, now())
        if (removed > 0) log.info({ chore: name, removed }, 'housekeeping')
      } catch (error) {
        log.warn({ err: error, chore: name }, 'housekeeping failed')
      }
    }
  }
  void run()
  const timer = setInterval(run, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
