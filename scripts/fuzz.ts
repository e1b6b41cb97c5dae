import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import type { DialectName } from '../src/db/database.js'
import { createOrganization } from '../src/organizations/repository.js'
import { createTestDatabase } from '../test/helpers/databases.js'
import { formatReport, runFuzz } from '../test/helpers/fuzz.js'
import { FUZZ_CONFIG, seedFuzzFixture } from '../test/helpers/fuzz-fixture.js'

/**
 * `npm run fuzz -- [--dialect sqlite|postgres] [--cases N] [--seed S] [--only TEXT] [--progress]`: the schema-driven
 * fuzzer (test/helpers/fuzz.ts) over every operation of the OpenAPI document, on a fresh database of the
 * dialect (PostgreSQL: the test server, `EXPERTDIR_TEST_POSTGRES_URL`). Prints the figures and every
 * failure; exits 1 when a case got a 5xx or an answer outside its declared response.
 */
const { values } = parseArgs({
  options: {
    dialect: { type: 'string', default: 'sqlite' },
    cases: { type: 'string', default: '25' },
    seed: { type: 'string', default: '20261128' },
    only: { type: 'string' },
    progress: { type: 'boolean', default: false },
  },
})
const dialect = values.dialect as DialectName
const cases = Number(values.cases)
const seed = Number(values.seed)
if (
  !['sqlite', 'postgres'].includes(dialect) ||
  !Number.isInteger(cases) ||
  cases < 1 ||
  !Number.isInteger(seed)
) {
  process.stderr.write(
    'usage: npm run fuzz -- [--dialect sqlite|postgres] [--cases N] [--seed S] [--only TEXT]\n',
  )
  process.exit(2)
}

const mediaDir = mkdtempSync(join(tmpdir(), 'expertdir-fuzz-media-'))
const testDatabase = await createTestDatabase(dialect)
const app = await buildApp({
  config: loadConfig({ logLevel: 'silent', mediaDir, ...FUZZ_CONFIG }, {}),
  database: testDatabase.database,
})
let failed = true
try {
  const { db } = testDatabase.database
  const org = await createOrganization(db, { name: 'Fuzzed University' }, Date.now())
  const other = await createOrganization(db, { name: 'Other Hospital' }, Date.now())
  const fixture = await seedFuzzFixture({ app, db, orgId: org.id, otherOrgId: other.id, now: Date.now })
  const report = await runFuzz(app, fixture, {
    cases,
    seed,
    ...(values.only ? { only: values.only } : {}),
    onOperation: (done, total, operation) => {
      if (values.progress) process.stderr.write(`${new Date().toISOString()} ${done}/${total} ${operation}\n`)
      else if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${done}/${total} ${operation}`)
    },
  })
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K')
  process.stdout.write(
    `${formatReport(report, `fuzz on ${dialect}, seed ${seed}, ${cases} cases per operation`)}\n`,
  )
  failed = report.failures.length > 0
} finally {
  await app.close()
  await testDatabase.drop()
  rmSync(mediaDir, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
