import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, before, describe, test } from 'node:test'
import { openReadConnection, type ReadConnection } from '../src/db/read-connection.js'
import { openSqliteConnection } from '../src/db/sqlite.js'
import { WalIndexHeader } from '../src/db/wal-index.js'

/**
 * Another process writing to the database: one commit per line on its stdin, a line on its stdout once
 * the commit has returned. A line starting with `!` truncates the WAL first: that commit restarts it.
 */
const WRITER = `
const { DatabaseSync } = process.getBuiltinModule('node:sqlite')
const db = new DatabaseSync(process.argv[1])
db.exec('pragma busy_timeout = 5000')
const insert = db.prepare('insert into notes (body) values (?)')
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.startsWith('!')) db.exec('pragma wal_checkpoint(TRUNCATE)')
  insert.run(line.replace(/^!/, ''))
  process.stdout.write('committed\\n')
})
`

async function startWriter(file: string) {
  const child = spawn(process.execPath, ['--no-warnings', '-e', WRITER, file], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  return {
    async commit(line: string) {
      child.stdin.write(`${line}\n`)
      const { value } = await lines.next()
      assert.equal(value, 'committed')
    },
    stop() {
      child.stdin.end()
      return new Promise((resolve) => child.once('exit', resolve))
    },
  }
}

/**
 * The read connection's change check (src/db/wal-index.ts): every commit, by any connection of any
 * process, moves it before the commit returns; nothing else does, so kept answers are kept.
 */
describe('the WAL-index header as the read connection change check', () => {
  let dir = ''
  let file = ''
  let reads: ReadConnection
  const writer = () => {
    const connection = openSqliteConnection(file)
    connection.exec('pragma journal_mode = WAL')
    return connection
  }

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'expertdir-wal-index-'))
    file = join(dir, 'notes.sqlite')
    const setup = writer()
    setup.exec('create table notes (id integer primary key, body text)')
    setup.close()
    reads = openReadConnection(file)
  })
  after(() => {
    reads.close()
    rmSync(dir, { recursive: true, force: true })
  })

  test('it stays put while nobody commits, whatever is read', () => {
    const first = reads.dataVersion()
    const own = writer()
    try {
      for (let i = 0; i < 20; i++) {
        own.prepare('select count(*) from notes').get()
        reads.all('select count(*) as n from notes', [])
        assert.equal(reads.dataVersion(), first)
      }
    } finally {
      own.close()
    }
  })

  test('every commit of another connection in this process moves it', () => {
    const own = writer()
    try {
      let last = reads.dataVersion()
      for (let i = 0; i < 50; i++) {
        own.prepare('insert into notes (body) values (?)').run(`own ${i}`)
        const now = reads.dataVersion()
        assert.notEqual(now, last, `commit ${i}`)
        assert.equal(reads.dataVersion(), now, 'and only once')
        last = now
      }
    } finally {
      own.close()
    }
  })

  test('every commit of another process moves it, a restarted WAL too', async () => {
    const other = await startWriter(file)
    try {
      let last = reads.dataVersion()
      for (let i = 0; i < 50; i++) {
        await other.commit(`${i % 10 === 9 ? '!' : ''}other ${i}`)
        const now = reads.dataVersion()
        assert.notEqual(now, last, `commit ${i} of the other process`)
        const [row] = reads.all('select count(*) as n from notes where body = ?', [`other ${i}`])
        assert.equal(row?.n, 1, 'and the commit is readable')
        last = now
      }
    } finally {
      await other.stop()
    }
  })

  test('inside checkingOnce it is read once; the next read after it sees what was committed meanwhile', () => {
    const own = writer()
    try {
      const before = reads.dataVersion()
      const inside = reads.checkingOnce(() => {
        const first = reads.dataVersion()
        own.prepare('insert into notes (body) values (?)').run('during one check')
        assert.equal(
          reads.checkingOnce(() => reads.dataVersion()),
          first,
          'nested: the same check',
        )
        return [first, reads.dataVersion()]
      })
      assert.deepEqual(inside, [before, before], 'one check for the whole block')
      assert.notEqual(reads.dataVersion(), before, 'the commit is seen right after')
      const last = reads.dataVersion()
      assert.throws(() =>
        reads.checkingOnce(() => {
          reads.dataVersion()
          throw new Error('fails inside')
        }),
      )
      own.prepare('insert into notes (body) values (?)').run('after a failed block')
      assert.notEqual(reads.dataVersion(), last, 'a failed block leaves no check behind')
    } finally {
      own.close()
    }
  })

  test('a database without a -shm file has no header to read', () => {
    assert.equal(WalIndexHeader.open(join(dir, 'missing.sqlite')), undefined)
  })
})
