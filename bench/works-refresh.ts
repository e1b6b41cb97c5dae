/**
 * Works refresh throughput: experts and works per second that `expertdir works refresh` stores, the
 * connectors reading a loopback stand-in for ORCID (every expert has `--works` works on its record, each
 * with a DOI) through their real HTTP path and pacer. ORCID's pacer (12 requests a second, two requests
 * per expert) bounds the figure on purpose: it is the rate the importer may use against the real API.
 *
 *   npx tsx bench/works-refresh.ts                              # SQLite in a temporary file
 *   npx tsx bench/works-refresh.ts --db postgres://...          # a fresh PostgreSQL database, dropped after
 *   npx tsx bench/works-refresh.ts --experts 20 --works 5       # a smoke run
 */
import http from 'node:http'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { cliTrail } from '../src/audit/actor.js'
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { insertExpert } from '../src/experts/repository.js'
import { createOrganization } from '../src/organizations/repository.js'
import { createWorksSchedule, refreshExpertsNow } from '../src/works/schedule.js'
import { sourcesFrom } from '../src/works/sources/index.js'
import { freshDatabase } from './fresh-database.js'

/** An ORCID iD from its first fifteen digits, with its ISO 7064 mod 11-2 check digit. */
function orcidOf(digits: string): string {
  let total = 0
  for (const digit of digits) total = (total + Number(digit)) * 2
  const check = (12 - (total % 11)) % 11
  const all = `${digits}${check === 10 ? 'X' : String(check)}`
  return `${all.slice(0, 4)}-${all.slice(4, 8)}-${all.slice(8, 12)}-${all.slice(12)}`
}

/** Put-codes are unique across ORCID, as the importer's merge by put-code expects. */
const putCodeOf = (orcid: string, index: number) => Number(orcid.replace(/\D/g, '').slice(-6)) * 1000 + index

const doiOf = (orcid: string, index: number) => `10.5555/bench.${orcid}.${index}`

/** ORCID's works summary (`/:orcid/works`) and bulk read (`/:orcid/works/1,2,...`) for any iD, `works` each. */
function orcidStandIn(works: number): http.Server {
  return http.createServer((request, response) => {
    const [, orcid = '', , codes] = new URL(request.url ?? '/', 'http://bench').pathname.split('/')
    const externalIds = (index: number) => ({
      'external-id': [
        {
          'external-id-type': 'doi',
          'external-id-value': doiOf(orcid, index),
          'external-id-relationship': 'self',
        },
      ],
    })
    const title = (index: number) => ({ title: { value: `Work ${index} of ${orcid}` } })
    const body =
      codes === undefined
        ? {
            'last-modified-date': { value: 1 },
            group: Array.from({ length: works }, (_, index) => ({
              'external-ids': externalIds(index),
              'work-summary': [
                { 'put-code': putCodeOf(orcid, index), title: title(index), type: 'journal-article' },
              ],
            })),
          }
        : {
            bulk: codes.split(',').map((code) => ({
              work: {
                'put-code': Number(code),
                title: title(Number(code) % 1000),
                type: 'journal-article',
                'external-ids': externalIds(Number(code) % 1000),
              },
            })),
          }
    const text = JSON.stringify(body)
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    response.end(text)
  })
}

export interface WorksRefreshFigures {
  dialect: string
  experts: number
  works_created: number
  errors: number
  seconds: number
  experts_per_second: number
  works_per_second: number
}

/**
 * Refreshes `experts` experts of `works` works each on a fresh database (`db`: a PostgreSQL server's URL,
 * else a temporary SQLite file) and answers the throughput; `complete` is false when a work is missing
 * or a source failed.
 */
export async function measureWorksRefresh({
  db,
  experts: EXPERTS,
  works: WORKS,
}: {
  db?: string | undefined
  experts: number
  works: number
}): Promise<WorksRefreshFigures & { complete: boolean }> {
  const target = await freshDatabase(db, 'works')
  const standIn = orcidStandIn(WORKS)
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve))
  const address = standIn.address()
  if (address === null || typeof address === 'string') throw new Error('the ORCID stand-in has no port')
  const { port } = address
  const database = openDatabase(target.url)
  try {
    await migrateToLatest(database.db)
    const now = Date.now()
    const org = await createOrganization(database.db, { name: 'Bench University' }, now)
    for (let index = 0; index < EXPERTS; index++) {
      const orcid = orcidOf(`0000000210${String(10_000 + index).padStart(5, '0')}`)
      await insertExpert(database.db, {
        org_id: org.id,
        username: `bench-${index}`,
        firstname: 'Bench',
        lastname: `Expert ${index}`,
        job_title: 'Researcher',
        email: `bench-${index}@example.org`,
        email_key: `bench-${index}@example.org`,
        company: 'Bench University',
        department: null,
        phone_number: null,
        phone_number_extension: null,
        location_city: null,
        location_state: null,
        location_country: null,
        location_postal: null,
        location_address: null,
        location_building: null,
        location_room: null,
        is_published: 1,
        is_private: 0,
        created_at: now,
        updated_at: now,
        orcid,
      })
    }
    const config = loadConfig(
      {
        sources: ['orcid'],
        sourcesAllowPrivate: true,
        orcidUrl: `http://127.0.0.1:${port}`,
      },
      {},
    )
    const schedule = createWorksSchedule({
      db: database.db,
      dialect: database.dialect,
      sources: sourcesFrom(config),
    })
    const started = performance.now()
    const result = await refreshExpertsNow(schedule, database.db, {
      orgId: org.id,
      trail: cliTrail('works refresh'),
    })
    const seconds = (performance.now() - started) / 1000
    await schedule.stop()
    const created = result.runs.reduce((sum, run) => sum + run.counts.created, 0)
    const errors = result.runs.flatMap((run) => run.errors)
    return {
      dialect: database.dialect,
      experts: result.runs.length,
      works_created: created,
      errors: errors.length,
      seconds: Number(seconds.toFixed(2)),
      experts_per_second: Number((result.runs.length / seconds).toFixed(2)),
      works_per_second: Number((created / seconds).toFixed(1)),
      complete: errors.length === 0 && created === EXPERTS * WORKS,
    }
  } finally {
    await database.close()
    standIn.close()
    await target.drop()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values: flags } = parseArgs({
    options: {
      db: { type: 'string' },
      experts: { type: 'string', default: '200' },
      works: { type: 'string', default: '20' }, // at most 1000
    },
  })
  const { complete, ...figures } = await measureWorksRefresh({
    db: flags.db,
    experts: Number(flags.experts),
    works: Number(flags.works),
  })
  console.log(JSON.stringify(figures, null, 2))
  if (!complete) process.exitCode = 1
}
