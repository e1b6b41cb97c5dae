import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Type } from 'typebox'
import { cliWriteContext } from '../src/audit/write-context.js'
import { createClient } from '../src/auth/clients.js'
import { createExpert } from '../src/experts/service.js'
import { KIND_NAMES } from '../src/inquiries/kinds.js'
import { createOrganization } from '../src/organizations/repository.js'
import { parsed, present } from './helpers/checked.js'
import { type ServerProcess, startServerProcess } from './helpers/cli.js'
import { createTestDatabase, testDialects } from './helpers/databases.js'
import { inquiryBody } from './helpers/harness.js'

/**
 * The kill test: a real server process receives a stream of concurrent inquiries over HTTP, is
 * killed with SIGKILL in the middle, and restarted on the same database. Every inquiry a client saw
 * acknowledged must be there exactly once; retries with their Idempotency-Key must not duplicate
 * what was committed but never acknowledged. The inquiries arrive concurrently, so they are committed
 * in shared batches (group commit): the server's debug log shows that batches of several formed.
 */

const TOTAL = 500
const CONCURRENCY = 16
const KILL_AFTER = 250

/** Inquiry `i` is of the i-th kind in turn, so every kind's write path is killed mid-stream. */
const kindOf = (i: number) => present(KIND_NAMES[i % KIND_NAMES.length])

function post(base: string, token: string, i: number, username: string) {
  return fetch(`${base}/v2/organization/1/inquiry/${kindOf(i)}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': `kill-test-${i}`,
    },
    body: JSON.stringify(inquiryBody(kindOf(i), username, { message: `kill-test-marker-${i}` })),
  })
}

/** The server's debug lines for each group commit (src/db/commit-queue.ts). */
function groupCommits(output: string): { units: number; committed: boolean }[] {
  return output
    .split('\n')
    .filter((line) => line.includes('"group commit"'))
    .map((line) => parsed(Type.Object({ units: Type.Number(), committed: Type.Boolean() }), JSON.parse(line)))
}

describe('inquiry durability', async () => {
  for (const { dialect, skip } of await testDialects()) {
    test(`keeps every acknowledged inquiry exactly once when the server is killed (${dialect})`, {
      skip,
    }, async (t) => {
      const testDatabase = await createTestDatabase(dialect)
      const { db } = testDatabase.database
      let child: ServerProcess | undefined
      try {
        const now = Date.now()
        await createOrganization(db, { id: 1, name: 'Durable University' }, now)
        const client = await createClient(db, 1, 'kill-test', now)
        const username = await createExpert(cliWriteContext(db, 1, 'test setup', now), {
          firstname: 'Grace',
          lastname: 'Hopper',
          job_title: 'Admiral',
          email: 'grace@navy.example',
          company: 'Navy',
        })

        child = await startServerProcess(testDatabase.url, { env: { LOG_LEVEL: 'debug' } })
        const tokenResponse = await fetch(`${child.base}/v2/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: client.client_id,
            client_secret: client.client_secret,
          }).toString(),
        })
        const token = parsed(
          Type.Object({ data: Type.Object({ accessToken: Type.String() }) }),
          await tokenResponse.json(),
        ).data.accessToken

        const acknowledged = new Map<number, number>()
        const sent: number[] = []
        let next = 0
        let killed = false
        const running = child
        const worker = async () => {
          while (!killed && next < TOTAL) {
            const i = next++
            sent.push(i)
            try {
              const response = await post(running.base, token, i, username)
              const body = parsed(
                Type.Object({
                  success: Type.Optional(Type.Boolean()),
                  data: Type.Optional(Type.Object({ id: Type.Integer() })),
                }),
                await response.json(),
              )
              if (response.status === 200 && body.success === true && body.data)
                acknowledged.set(i, body.data.id)
            } catch {
              // Connection reset or refused: not acknowledged, so the client would retry.
            }
            if (!killed && acknowledged.size >= KILL_AFTER) {
              killed = true
              running.child.kill('SIGKILL')
            }
          }
        }
        await Promise.all(Array.from({ length: CONCURRENCY }, worker))
        assert.equal(await running.exited, null, 'the server was killed, not stopped')
        assert.ok(killed)
        const batches = groupCommits(running.output())
        assert.ok(
          batches.some((batch) => batch.committed && batch.units > 1),
          'concurrent inquiries were committed in shared batches',
        )

        child = await startServerProcess(testDatabase.url)
        const rows = await db
          .selectFrom('inquiries')
          .select(['id', 'kind', 'message'])
          .where('message', 'like', 'kill-test-marker-%')
          .execute()
        const byMarker = new Map<number, number[]>()
        for (const row of rows) {
          const i = Number(row.message.slice('kill-test-marker-'.length))
          byMarker.set(i, [...(byMarker.get(i) ?? []), row.id])
          assert.equal(row.kind, kindOf(i), 'each inquiry is stored as the kind it was sent as')
        }
        assert.equal(new Set(rows.map((row) => row.kind)).size, KIND_NAMES.length, 'every kind is in the mix')
        const missing = [...acknowledged].filter(([i, id]) => byMarker.get(i)?.[0] !== id)
        assert.deepEqual(missing, [], 'every acknowledged inquiry is stored under its acknowledged id')
        assert.ok(
          [...byMarker.values()].every((ids) => ids.length === 1),
          'no inquiry is stored twice',
        )
        const outbox = await db.selectFrom('inquiry_deliveries').select('inquiry_id').execute()
        assert.equal(outbox.length, rows.length * 2, 'every stored inquiry has its two outbox rows')
        const committedUnacknowledged = rows.length - acknowledged.size

        // The client retries whatever it did not see acknowledged, with the same keys.
        const unacknowledged = sent.filter((i) => !acknowledged.has(i))
        let replayed = 0
        for (const i of unacknowledged) {
          const response = await post(child.base, token, i, username)
          assert.equal(response.status, 200)
          if (response.headers.get('idempotent-replayed') === 'true') replayed++
          await response.json()
        }
        const after = await db
          .selectFrom('inquiries')
          .select('message')
          .where('message', 'like', 'kill-test-marker-%')
          .execute()
        assert.equal(after.length, sent.length, 'after the retries each sent inquiry exists exactly once')
        assert.equal(new Set(after.map((row) => row.message)).size, sent.length)
        assert.equal(replayed, committedUnacknowledged)

        t.diagnostic(
          `${dialect}: sent ${sent.length}, acknowledged ${acknowledged.size}, found after restart ${rows.length} ` +
            `(all ${acknowledged.size} acknowledged present once, ${committedUnacknowledged} committed but unacknowledged), ` +
            `retried ${unacknowledged.length} with their keys: ${replayed} replayed, total ${after.length}; ` +
            `before the kill ${batches.length} group commits, largest ${Math.max(...batches.map((b) => b.units))}`,
        )

        child.child.kill('SIGTERM')
        assert.equal(await child.exited, 0, 'SIGTERM stops the server cleanly')
        child = undefined
      } finally {
        if (child && child.child.exitCode === null) {
          child.child.kill('SIGKILL')
          await child.exited
        }
        await testDatabase.drop()
      }
    })
  }
})
