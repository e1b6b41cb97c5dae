import type { Kysely } from 'kysely'
import type { PrincipalResolver } from './auth/bearer.js'
import type { FailureLimit } from './auth/failure-limit.js'
import type { Lockout } from './auth/lockout.js'
import type { Config } from './config.js'
import type { Database } from './db/database.js'
import type { DB } from './db/schema.js'

/** What every feature needs from the running app: config, database, clock, token resolution. */
export interface AppContext {
  readonly config: Config
  readonly database: Database
  readonly db: Kysely<DB>
  /** Unix milliseconds; injectable so tests can move time. */
  readonly now: () => number
  readonly principals: PrincipalResolver
  /** Consecutive bad client secrets per (client id, IP). */
  readonly lockout: Lockout
  /** Failed client authentications per address and minute, whatever the client id. */
  readonly authFailures: FailureLimit
}
