import type { Kysely } from 'kysely'
import type { Config } from '../../config.js'
import type { DB } from '../../db/schema.js'
import { createEmbeddingLoop, type EmbeddingLoop } from './loop.js'
import { type EmbeddingProvider, openAiEmbeddings } from './provider.js'
import { createEmbeddingRanking, type EmbeddingRanking } from './ranking.js'

/** The optional embeddings of a process (docs/meaning.md, "Embeddings (optional)"): off unless a URL is configured. */
export interface Embeddings {
  provider: EmbeddingProvider
  /** Keeps the experts' vectors current; started by the process that runs background work. */
  loop: EmbeddingLoop
  /** The list the rankings fuse in. */
  ranking: EmbeddingRanking
}

type Log = { warn(object: object, message: string): void; info(object: object, message: string): void }

/** The embeddings the settings describe, or undefined when `EXPERTDIR_EMBEDDINGS_URL` is unset. */
export function embeddingsFrom(
  config: Config,
  {
    db,
    dialect,
    now,
    log,
  }: { db: Kysely<DB>; dialect: 'sqlite' | 'postgres'; now?: () => number; log?: Log },
): Embeddings | undefined {
  const { embeddingsUrl: url, embeddingsModel: model } = config
  if (url === undefined || model === undefined) return undefined
  const provider = openAiEmbeddings({
    url,
    model,
    apiKey: config.embeddingsApiKey,
    batchSize: config.embeddingsBatchSize,
    timeoutMs: config.embeddingsTimeoutMs,
    ...(now ? { now } : {}),
  })
  return {
    provider,
    loop: createEmbeddingLoop({
      db,
      dialect,
      provider,
      batchSize: config.embeddingsBatchSize,
      leaseMs: config.embeddingsLeaseSeconds * 1000,
      pollMs: config.embeddingsPollSeconds * 1000,
      ...(now ? { now } : {}),
      ...(log ? { log } : {}),
    }),
    ranking: createEmbeddingRanking({
      db,
      provider,
      queryTimeoutMs: config.embeddingsQueryTimeoutMs,
      ...(log ? { log } : {}),
    }),
  }
}
