import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { MIGRATIONS } from '../src/db/migrate.js'
import { runCli } from './helpers/cli.js'
import { createTestDatabase, type TestDatabase, testDialects } from './helpers/databases.js'

const PROCESSES = 3

for (const { dialect, skip } of await testDialects()) {
  describe(`several processes migrating one ${dialect} database`, { skip, timeout: 120_000 }, () => {
    let testDatabase: TestDatabase
    before(async () => {
      testDatabase = await createTestDatabase(dialect, { migrate: false })
    })
    after(() => testDatabase?.drop())

    test('started together, exactly one applies each migration and all succeed', async () => {
      const runs = await Promise.all(
        Array.from({ length: PROCESSES }, () => runCli(['--db', testDatabase.url, 'migrate', '--json'])),
      )
      for (const run of runs) assert.equal(run.code, 0, run.stderr)
      const applied = runs.flatMap((run) => JSON.parse(run.stdout).applied as string[])
      assert.deepEqual(
        applied.sort(),
        Object.keys(MIGRATIONS).sort(),
        'each migration applied once, by one process',
      )
      const recorded = await testDatabase.database.db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .execute()
      assert.equal(recorded.length, Object.keys(MIGRATIONS).length)
    })
  })
}
