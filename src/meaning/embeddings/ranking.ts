import type { Queryable } from '../../db/database.js'
import { EMBEDDING_TEXT_CHARS } from '../../derived/meaning/fingerprint.js'
import { LIST_DEPTH } from '../rank.js'
import { EmbeddingError, type EmbeddingProvider } from './provider.js'
import { readEmbeddingsVersion, readVectors } from './store.js'
import { unitVector, vectorOfBytes } from './vectors.js'

/**
 * The embeddings' ranking, one more list for reciprocal rank fusion (SOURCES §7.5): the organization's
 * experts by the cosine of their vector with the query's, best first, LIST_DEPTH of them, only positive
 * cosines. The caller narrows it to the experts the audience may see, as every other list.
 *
 * A process keeps each organization's vectors (unit length, one Float32Array) under the organization's
 * `embedding_stats` version, which the loop moves whenever it stores a vector: a query reads that one
 * row, and the vectors only when they changed. At most CACHE_BYTES are kept, least recently used
 * organizations leaving first; an organization larger than that is read for each query.
 *
 * Nothing here fails a search: a text the provider cannot embed now (down, slow past the query timeout,
 * paused by a 429) gives an empty list, and the answer is the ranking without embeddings.
 */
export interface EmbeddingRanking {
  /** Experts nearest to the text; [] when it cannot be embedded now. */
  forText(orgId: number, text: string): Promise<number[]>
  /** Experts nearest to `expertId` (itself left out); [] when it has no vector. */
  forExpert(orgId: number, expertId: number): Promise<number[]>
}

const CACHE_BYTES = 64 * 1024 * 1024

interface KeptVectors {
  version: number
  ids: number[]
  rowOf: Map<number, number>
  dimensions: number
  /** ids.length rows of `dimensions` values, each of length 1. */
  matrix: Float32Array
}

type Log = { warn(object: object, message: string): void }

export function createEmbeddingRanking(options: {
  db: Queryable
  provider: EmbeddingProvider
  queryTimeoutMs: number
  log?: Log
}): EmbeddingRanking {
  const { db, provider, queryTimeoutMs } = options
  const kept = new Map<number, KeptVectors>()
  let keptBytes = 0

  function keep(orgId: number, vectors: KeptVectors) {
    const old = kept.get(orgId)
    if (old) {
      kept.delete(orgId)
      keptBytes -= old.matrix.byteLength
    }
    if (vectors.matrix.byteLength > CACHE_BYTES) return
    for (const [id, entry] of kept) {
      if (keptBytes + vectors.matrix.byteLength <= CACHE_BYTES) break
      kept.delete(id)
      keptBytes -= entry.matrix.byteLength
    }
    kept.set(orgId, vectors)
    keptBytes += vectors.matrix.byteLength
  }

  async function vectorsOf(orgId: number): Promise<KeptVectors> {
    const version = await readEmbeddingsVersion(db, orgId)
    const found = kept.get(orgId)
    if (found && found.version === version) {
      kept.delete(orgId)
      kept.set(orgId, found)
      return found
    }
    const rows = (await readVectors(db, orgId, provider.model)).map((row) => ({
      id: row.expert_id,
      vector: unitVector(vectorOfBytes(row.vector)),
    }))
    // Vectors of another length (a model that changed its size) are left out until embedded again.
    const dimensions = rows.at(-1)?.vector.length ?? 0
    const usable = rows.filter((row) => row.vector.length === dimensions)
    const matrix = new Float32Array(usable.length * dimensions)
    for (const [index, row] of usable.entries()) matrix.set(row.vector, index * dimensions)
    const vectors: KeptVectors = {
      version,
      ids: usable.map((row) => row.id),
      rowOf: new Map(usable.map((row, index) => [row.id, index])),
      dimensions,
      matrix,
    }
    keep(orgId, vectors)
    return vectors
  }

  function nearest(vectors: KeptVectors, query: Float32Array, exclude?: number): number[] {
    const { dimensions, matrix, ids } = vectors
    if (query.length !== dimensions || dimensions === 0) return []
    const scored: { id: number; cosine: number }[] = []
    for (const [row, id] of ids.entries()) {
      if (id === exclude) continue
      let dot = 0
      const offset = row * dimensions
      for (let i = 0; i < dimensions; i++) dot += (matrix[offset + i] ?? 0) * (query[i] ?? 0)
      if (dot > 0) scored.push({ id, cosine: dot })
    }
    return scored
      .sort((a, b) => b.cosine - a.cosine || a.id - b.id)
      .slice(0, LIST_DEPTH)
      .map(({ id }) => id)
  }

  return {
    async forText(orgId, text) {
      const vectors = await vectorsOf(orgId)
      if (vectors.ids.length === 0) return []
      let query: Float32Array | undefined
      try {
        ;[query] = await provider.embed([text.slice(0, EMBEDDING_TEXT_CHARS)], { timeoutMs: queryTimeoutMs })
      } catch (error) {
        if (!(error instanceof EmbeddingError)) throw error
        options.log?.warn(
          { org_id: orgId, error: error.message },
          'text not embedded; ranked without embeddings',
        )
        return []
      }
      return query ? nearest(vectors, unitVector(query)) : []
    },
    async forExpert(orgId, expertId) {
      const vectors = await vectorsOf(orgId)
      const row = vectors.rowOf.get(expertId)
      if (row === undefined) return []
      const start = row * vectors.dimensions
      return nearest(vectors, vectors.matrix.subarray(start, start + vectors.dimensions), expertId)
    },
  }
}
