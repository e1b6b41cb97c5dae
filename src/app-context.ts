import type { Kysely } from 'kysely'
import type { Config } from './config.js'
import type { Database } from './db/database.js'
import type { DB } from './db/schema.js'
import type { EmbeddingRanking } from './meaning/embeddings/ranking.js'
import type { MediaStorage } from './storage/storage.js'

/** The running app's infrastructure that every feature needs: config, database, clock, media storage. */
export interface AppContext {
  readonly config: Config
  readonly database: Database
  readonly db: Kysely<DB>
  /** Unix milliseconds; injectable so tests can move time. */
  readonly now: () => number
  /** Where photos and documents are stored (a folder or a bucket). */
  readonly storage: MediaStorage
  /** The embeddings' ranking, fused into finding experts by meaning; absent when no embeddings API is configured. */
  readonly embeddings?: EmbeddingRanking | undefined
}
