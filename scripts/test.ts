import { readdirSync } from 'node:fs'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'

/**
 * `npm test`'s runner: node's own (`node --test` takes files in name order), given the slowest files
 * first, so that at the end no long file starts while the other worker has nothing left to do. The
 * order only schedules; every file runs. Unlisted files (new ones too) follow in name order.
 */
const SLOWEST_FIRST = [
  'test/dashboard-browser.test.ts',
  'test/cluster.test.ts',
  'test/abuse.test.ts',
  'test/delivery.test.ts',
  'test/directory-browser.test.ts',
  'test/backup.test.ts',
  'test/concurrency.test.ts',
  'test/admin-api.test.ts',
  'test/cli.test.ts',
  'test/auth-token.test.ts',
  'packages/client/test/package.test.ts',
  'test/directory.test.ts',
  'packages/client/test/client.test.ts',
]

const found = ['test', 'packages/client/test']
  .flatMap((folder) =>
    readdirSync(folder)
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => `${folder}/${name}`),
  )
  .sort()
const files = [
  ...SLOWEST_FIRST.filter((file) => found.includes(file)),
  ...found.filter((file) => !SLOWEST_FIRST.includes(file)),
]
run({ files, concurrency: 2 })
  .on('test:fail', () => {
    process.exitCode = 1
  })
  .compose(spec)
  .pipe(process.stdout)
