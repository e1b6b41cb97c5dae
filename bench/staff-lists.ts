/**
 * The staff and employee lists over the search index: service time (no HTTP) of their queries, with
 * and without `q`, for both audiences, over an organization of 6,000 profiles of which 3,000 are
 * staff members (the search benchmark's dataset, every other profile turned into a staff member):
 * with the page and count kept under the index version, and after a write (the version raised).
 *
 *   npx tsx bench/staff-lists.ts                      # SQLite in a temporary file
 *   npx tsx bench/staff-lists.ts --db postgres://...  # a fresh PostgreSQL database, dropped after
 */
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { type Database, openDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import type { ProfileType } from '../src/db/schema.js'
import type { Audience } from '../src/derived/audience.js'
import { bumpExpertSearchVersion } from '../src/derived/search-index.js'
import { rebuildSearchIndex } from '../src/derived/search-maintenance.js'
import type { ProfileListInput } from '../src/staff/schemas.js'
import { listPeople } from '../src/staff/service.js'
import { freshDatabase } from './fresh-database.js'
import { buildSearchDataset } from './search-dataset.js'

const PROFILES = 6000
const RUNS = 50

/** p50 and p99 of `run`; `before` runs untimed before each (a write that retires the kept results). */
async function time(
  run: () => Promise<unknown>,
  before: () => Promise<unknown> = async () => {},
): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 5; i++) await run()
  const samples: number[] = []
  for (let i = 0; i < RUNS; i++) {
    await before()
    const started = performance.now()
    await run()
    samples.push(performance.now() - started)
  }
  samples.sort((a, b) => a - b)
  const at = (share: number) => Number((samples[Math.floor(share * (samples.length - 1))] ?? 0).toFixed(2))
  return { p50: at(0.5), p99: at(0.99) }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { db: { type: 'string' } } })
  const database = await freshDatabase(values.db, 'staff')
  let handle: Database | undefined
  try {
    handle = openDatabase(database.url)
    const { db, dialect } = handle
    await migrateToLatest(db)
    const dataset = await buildSearchDataset(db, PROFILES, Date.now())
    await sql`update experts set type = 'staff' where org_id = ${dataset.orgId} and id % 2 = 0`.execute(db)
    await rebuildSearchIndex(db, dataset.orgId)
    await handle.refreshStatistics()
    const surname = dataset.surnames[0] ?? 'ka'
    const discipline = dataset.disciplines[0] ?? 'History'
    const cases: [string, readonly ProfileType[], ProfileListInput, Audience][] = [
      ['staff, by name', ['staff'], {}, 'all'],
      ['staff, by name, page_from=2000', ['staff'], { page_from: 2000 }, 'all'],
      [`staff, q=${surname}`, ['staff'], { q: surname }, 'all'],
      [`staff, q=${discipline} (many matches)`, ['staff'], { q: discipline }, 'all'],
      [`staff, q=${discipline.slice(0, 2)} (prefix)`, ['staff'], { q: discipline.slice(0, 2) }, 'all'],
      [`staff, q=${surname}, read:public`, ['staff'], { q: surname }, 'public'],
      ['employees, by name', ['expert', 'staff'], {}, 'all'],
      [`employees, q=${discipline}`, ['expert', 'staff'], { q: discipline }, 'all'],
      [`employees, q=${discipline}, read:public`, ['expert', 'staff'], { q: discipline }, 'public'],
    ]
    console.log(`${dialect}: ${PROFILES} profiles, ${PROFILES / 2} of them staff; ${RUNS} runs each (ms)`)
    for (const [name, types, input, audience] of cases) {
      const { total } = await listPeople({ db, dialect }, dataset.orgId, types, input, audience)
      const list = () => listPeople({ db, dialect }, dataset.orgId, types, input, audience)
      const kept = await time(list)
      const fresh = await time(list, () => bumpExpertSearchVersion(db, dataset.orgId))
      console.log(
        `  ${name}: ${total} matches; kept p50 ${kept.p50} p99 ${kept.p99}; after a write p50 ${fresh.p50} p99 ${fresh.p99}`,
      )
    }
  } finally {
    await handle?.close()
    await database.drop()
  }
}

await main()
