import type pg from 'pg'
import {
  type Placeholder,
  READ_TARGET_KINDS,
  type ReadTarget,
  versionParameters,
  versionStatement,
} from '../kept-reads/read-targets.js'

/** One token check: the token's hash, the request's time and the record the route reads, if any. */
export interface PrincipalLookup {
  tokenHash: string
  time: number
  target: ReadTarget | undefined
}

/** Most version parameters of a target kind (an expert's: organization, username, type). */
const TARGET_PARAMETERS = 3
/** Most lookups one statement answers. */
const BATCH_MAX = 64

/** A version parameter of the batch statement: the row's `p<n>` column, cast to the compared type. */
const rowParameter: Placeholder = (n, type) => (type === 'text' ? `r.p${n}` : `cast(r.p${n} as ${type})`)

/**
 * Every lookup of a batch in one statement: one row per live token, numbered as the lookups were,
 * with the version of that lookup's target (the target's own statement, chosen by its kind; null
 * without a target or when the record does not exist). The token check is tokens.ts's.
 */
const BATCH_STATEMENT = {
  name: 'expertdir_principals',
  text: `select r.n, t.org_id, t.client_id, t.expires_at, t.scope,
      case r.kind
        ${READ_TARGET_KINDS.map((kind) => `when '${kind}' then (${versionStatement(kind, rowParameter)})`).join('\n        ')}
      end as version
    from unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[])
      with ordinality as r(token_hash, at, kind, p1, p2, p3, n)
    join access_tokens t on t.token_hash = r.token_hash and t.expires_at > r.at
    join clients c on c.client_id = t.client_id
    join organizations o on o.id = c.org_id
    where c.revoked_at is null and c.org_id = t.org_id`,
}

interface Waiting {
  lookup: PrincipalLookup
  resolve(row: Record<string, unknown> | undefined): void
  reject(error: unknown): void
}

/**
 * PostgreSQL token checks, each with its target's version, shared by concurrent requests: the lookups
 * of one turn of the event loop (the requests read from every socket that had data) go together in
 * one statement, started once the turn's input is read (`setImmediate`, before the loop waits again:
 * a lone request waits for nothing). Lookups that arrive while every slot is busy wait and go together
 * in the next statement, one round trip for all of them. Each statement starts after its requests
 * arrived, so every answer is as fresh as a statement of its own would be. Under load, starting each
 * lookup at once while a slot was free sent three statements in four with a single lookup
 * (docs/performance.md, "PostgreSQL figures"). Resolves with the lookup's row (undefined: no live token).
 */
export function principalBatches(
  pool: pg.Pool,
  slots: number,
): (lookup: PrincipalLookup) => Promise<unknown> {
  const waiting: Waiting[] = []
  let running = 0
  let scheduled = false

  function next(): void {
    scheduled = false
    while (running < slots && waiting.length > 0) {
      running++
      void run(waiting.splice(0, BATCH_MAX)).finally(() => {
        running--
        schedule()
      })
    }
  }

  function schedule(): void {
    if (scheduled || waiting.length === 0) return
    scheduled = true
    setImmediate(next)
  }

  async function run(batch: Waiting[]): Promise<void> {
    const columns: unknown[][] = Array.from({ length: 3 + TARGET_PARAMETERS }, () => [])
    for (const { lookup } of batch) {
      const parameters = lookup.target ? versionParameters(lookup.target) : []
      const row = [lookup.tokenHash, lookup.time, lookup.target?.kind ?? null]
      for (let i = 0; i < TARGET_PARAMETERS; i++) row.push(parameters[i] ?? null)
      for (const [i, value] of row.entries()) columns[i]?.push(value)
    }
    try {
      const { rows } = await pool.query<Record<string, unknown>>({ ...BATCH_STATEMENT, values: columns })
      const byNumber = new Map(rows.map((row) => [Number(row.n), row]))
      for (const [i, entry] of batch.entries()) entry.resolve(byNumber.get(i + 1))
    } catch (error) {
      for (const entry of batch) entry.reject(error)
    }
  }

  return (lookup) =>
    new Promise((resolve, reject) => {
      waiting.push({ lookup, resolve, reject })
      schedule()
    })
}
