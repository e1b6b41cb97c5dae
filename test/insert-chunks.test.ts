import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import fc from 'fast-check'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { insertChunks } from '../src/db/chunks.js'
import { openDatabase } from '../src/db/database.js'
import type { DB } from '../src/db/schema.js'

/** Only the dialect matters to the chunking: an SQLite database in memory, a PostgreSQL pool never connected. */
const sqlite = openDatabase(':memory:')
const pool = new pg.Pool({ connectionString: 'postgres://127.0.0.1:9/none' })
const postgres = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
after(async () => {
  await sqlite.close()
  await postgres.destroy()
})

const rowsOf = (count: number, columns: number) =>
  Array.from({ length: count }, (_, i) =>
    Object.fromEntries(Array.from({ length: columns }, (_, c) => [`c${c}`, i])),
  )

const sameRowsInOrder = (chunks: object[][], rows: object[]) => {
  const flat = chunks.flat()
  assert.equal(flat.length, rows.length)
  assert.ok(flat.every((row, i) => row === rows[i]))
}

test('SQLite: insert chunks keep every row once, in order, each a power of two or a multiple of an eighth of the largest, of at most 4096 values', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 40 }), (count, columns) => {
      const rows = rowsOf(count, columns)
      const chunks = insertChunks(sqlite.db, rows)
      sameRowsInOrder(chunks, rows)
      const size = 2 ** Math.floor(Math.log2(Math.max(1, Math.floor(4096 / columns))))
      const unit = Math.max(1, size / 8)
      for (const chunk of chunks) {
        const shaped = Number.isInteger(Math.log2(chunk.length)) || chunk.length % unit === 0
        assert.ok(shaped, `${chunk.length} rows of ${columns} columns`)
        assert.ok(chunk.length * columns <= 4096)
      }
      assert.ok(chunks.length <= Math.floor(count / size) + 1 + Math.log2(unit) + 1)
    }),
    { numRuns: 100 },
  )
})

test('SQLite: however many rows are inserted, a table gets a bounded set of statement lengths', () => {
  const lengths = new Set<number>()
  const rows = rowsOf(3000, 6)
  for (let count = 1; count <= rows.length; count++)
    for (const chunk of insertChunks(sqlite.db, rows.slice(0, count))) lengths.add(chunk.length)
  // 6 columns: at most 512 rows a statement, multiples of 64 below that, powers of two below 64.
  assert.deepEqual(
    [...lengths].sort((a, b) => a - b),
    [1, 2, 4, 8, 16, 32, 64, 128, 192, 256, 320, 384, 448, 512],
  )
})

test('PostgreSQL: insert chunks are as few as 30,000 values a statement allow', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 1, max: 40 }), (count, columns) => {
      const rows = rowsOf(count, columns)
      const chunks = insertChunks(postgres, rows)
      sameRowsInOrder(chunks, rows)
      const size = Math.floor(30_000 / columns)
      assert.equal(chunks.length, Math.ceil(count / size))
      assert.ok(chunks.every((chunk) => chunk.length <= size))
    }),
    { numRuns: 50 },
  )
})
