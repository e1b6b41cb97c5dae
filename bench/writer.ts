/**
 * The other process of the bench's mixed run: commits small writes to the database at a fixed rate for a
 * fixed time, then prints `{"commits": N, "seconds": S}` and exits. Each commit raises the `doc_version`
 * of one expert that the measured reads never ask for, so every commit moves SQLite's `data_version` (the
 * readers' kept answers are read again) while the measured profile stays the same.
 *
 *   tsx bench/writer.ts DATABASE_URL ORG_ID SKIP_USERNAME RATE SECONDS
 */
import { sql } from 'kysely'
import { openDatabase } from '../src/db/database.js'
import { touchExperts } from '../src/derived/versions.js'

const [url = '', org = '', skip = '', rateText = '1000', secondsText = '5'] = process.argv.slice(2)
const orgId = Number(org)
const rate = Number(rateText)
const seconds = Number(secondsText)
const database = openDatabase(url)
// The writer stands for other processes' writes, not for durable ones: without an fsync per commit an
// SQLite file on this machine can take 1,000 commits a second.
if (database.dialect === 'sqlite') await sql`pragma synchronous = NORMAL`.execute(database.db)
const other = await database.db
  .selectFrom('experts')
  .select('id')
  .where('org_id', '=', orgId)
  .where('username', '!=', skip)
  .limit(1)
  .executeTakeFirstOrThrow()
console.log(JSON.stringify({ url: 'writer://ready' }))
const started = performance.now()
let commits = 0
while (performance.now() - started < seconds * 1000) {
  const due = Math.floor(((performance.now() - started) / 1000) * rate)
  if (commits >= due) {
    await new Promise((resolve) => setTimeout(resolve, 1))
    continue
  }
  await database.db.transaction().execute((trx) => touchExperts(trx, orgId, [other.id], Date.now()))
  commits++
}
console.log(JSON.stringify({ commits, seconds: (performance.now() - started) / 1000 }))
await database.close()
