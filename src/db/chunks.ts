/** Most values bound in one `in (...)` list: well below SQLite's and PostgreSQL's parameter limits. */
export const CHUNK = 500

/** Runs `run` over the distinct `values` in chunks of CHUNK and concatenates the results. */
export async function inChunks<T, R>(values: readonly T[], run: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = []
  const unique = [...new Set(values)]
  for (let i = 0; i < unique.length; i += CHUNK) out.push(...(await run(unique.slice(i, i + CHUNK))))
  return out
}
