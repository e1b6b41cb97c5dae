import { readdirSync } from 'node:fs'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'

/**
 * `npm test`'s runner: node's own (`node --test` takes files in name order), given the slowest files
 * first, so that at the end no long file starts while the other worker has nothing left to do. The
 * order only schedules; every file runs. Unlisted files (new ones too) follow in name order. The list
 * is a measured run's slowest files, then the ones past runs named slow (server processes, the shared
 * security suites).
 */
const SLOWEST_FIRST = [
  'test/dashboard-browser.test.ts',
  'test/faults.test.ts',
  'test/works-end-to-end.test.ts',
  'test/dashboard-publications.test.ts',
  'test/dashboard-meaning.test.ts',
  'test/directory-meaning-browser.test.ts',
  'test/experts.test.ts',
  'test/concurrency.test.ts',
  'test/cluster.test.ts',
  'test/abuse.test.ts',
  'test/http-conventions.test.ts',
  'test/cli.test.ts',
  'test/delivery.test.ts',
  'test/docs-browser.test.ts',
  'test/directory-browser.test.ts',
  'test/backup.test.ts',
  'test/admin-api.test.ts',
  'test/multi-process.test.ts',
  'test/inquiry-durability.test.ts',
  'test/security.test.ts',
  'test/security-people.test.ts',
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
