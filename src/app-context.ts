import type { Kysely } from 'kysely'
import type { Principal } from './auth/tokens.js'
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
  readonly principals: { resolve(token: string): Promise<Principal | undefined> }
}
