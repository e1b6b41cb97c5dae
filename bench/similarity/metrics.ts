/**
 * The evaluation's measures over ranked lists of usernames (best first). Lists shorter than k count
 * as they are: a missing place is a miss, so a ranking that returns fewer than k never scores higher.
 */

/** Share of the first `k` places held by relevant items: `k` is the denominator even for shorter lists. */
export function precisionAtK<T>(ranked: readonly T[], relevant: ReadonlySet<T>, k: number): number {
  if (k <= 0) throw new Error('k must be positive')
  return ranked.slice(0, k).filter((item) => relevant.has(item)).length / k
}

/** Whether one of the relevant items is among the first `k` (recall@k of a query with one right answer set). */
export function hitAtK<T>(ranked: readonly T[], relevant: ReadonlySet<T>, k: number): boolean {
  if (k <= 0) throw new Error('k must be positive')
  return ranked.slice(0, k).some((item) => relevant.has(item))
}

/** The mean of `values`; 0 for none. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length
}

/** recall@k over queries: the share of queries whose ranking has a relevant item among its first `k`. */
export function recallAtK<T>(
  queries: readonly { ranked: readonly T[]; relevant: ReadonlySet<T> }[],
  k: number,
): number {
  return mean(queries.map(({ ranked, relevant }) => (hitAtK(ranked, relevant, k) ? 1 : 0)))
}

/** Mean precision@k over queries. */
export function meanPrecisionAtK<T>(
  queries: readonly { ranked: readonly T[]; relevant: ReadonlySet<T> }[],
  k: number,
): number {
  return mean(queries.map(({ ranked, relevant }) => precisionAtK(ranked, relevant, k)))
}
