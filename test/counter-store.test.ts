import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import { after, describe, test } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { Redis, type RedisOptions } from 'ioredis'
import { createFailureLimit } from '../src/auth/failure-limit.js'
import { createLockout, LOCKOUT_MS, MAX_FAILURES } from '../src/auth/lockout.js'
import { createContactLimit } from '../src/directory/address-limits.js'
import type { CounterStore, Window, WindowCount } from '../src/limits/counter-store.js'
import { memoryCounters } from '../src/limits/memory-counters.js'
import { redisCounters } from '../src/limits/redis-counters.js'
import { createResetLimit } from '../src/sessions/reset-limit.js'
import { listeningPort } from './helpers/net.js'

const REDIS_URL = process.env.EXPERTDIR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
/** The app's connection options (src/app.ts): fail fast so that limits fail open. */
const APP_REDIS_OPTIONS = { connectTimeout: 1000, maxRetriesPerRequest: 1 }

/** Polls `read` until `done` holds of its answer, or fails after `timeoutMs`. */
async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) assert.fail(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`)
    await delay(20)
  }
}

async function redisAnswers(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0 })
  redis.on('error', () => {})
  try {
    await redis.connect()
    return (await redis.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    redis.disconnect()
  }
}

/** One implementation under test: how to make stores that share their counts, and how time passes. */
interface Subject {
  store(): CounterStore
  /** Lets `ms` pass: the memory store's clock moves by it; with Redis the test waits until `done` holds of `read`. */
  pass(
    ms: number,
    read: () => Promise<WindowCount | undefined>,
    done: (count: WindowCount) => boolean,
  ): Promise<void>
  /** A window short enough for Redis to expire while the test waits. */
  windowMs: number
}

function memorySubject(): Subject {
  let clock = 1_000_000
  const store = memoryCounters(() => clock)
  return {
    store: () => store,
    async pass(ms) {
      clock += ms
    },
    windowMs: 60_000,
  }
}

const redisUp = await redisAnswers()
const prefix = `expertdir-test-${randomUUID()}:`
const connections: Redis[] = []
function connection(url = REDIS_URL, options: RedisOptions = APP_REDIS_OPTIONS): Redis {
  const redis = new Redis(url, options)
  redis.on('error', () => {})
  connections.push(redis)
  return redis
}
after(async () => {
  if (redisUp) {
    const redis = connection()
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
  }
  for (const redis of connections) redis.disconnect()
})

function redisSubject(): Subject {
  const failOnError = (error: unknown) => assert.fail(`unexpected Redis error: ${String(error)}`)
  return {
    store: () => redisCounters(connection(), prefix, failOnError),
    async pass(_ms, read, done) {
      await waitFor(async () => (await read()) ?? { count: -1, remainingMs: 0 }, done)
    },
    windowMs: 400,
  }
}

const subjects: [string, () => Subject, string | false][] = [
  ['memory', memorySubject, false],
  ['Redis', redisSubject, redisUp ? false : `Redis does not answer at ${REDIS_URL}`],
]

for (const [name, makeSubject, skip] of subjects) {
  describe(`counter store: ${name}`, { skip }, () => {
    test('counts hits per key and name, reads without counting and forgets on reset', async () => {
      const subject = makeSubject()
      const store = subject.store()
      const hits = store.counters(`hits-${randomUUID()}`)
      const others = store.counters(`others-${randomUUID()}`)
      const window: Window = { windowMs: 60_000, ends: 'fixed' }
      assert.deepEqual(await hits.read('a'), { count: 0, remainingMs: 0 })
      assert.equal((await hits.increment('a', window))?.count, 1)
      assert.equal((await hits.increment('a', window))?.count, 2)
      assert.equal((await hits.increment('b', window))?.count, 1)
      assert.equal((await others.increment('a', window))?.count, 1, 'another name counts apart')
      const read = await hits.read('a')
      assert.equal(read?.count, 2)
      assert.ok(read && read.remainingMs > 0 && read.remainingMs <= 60_000, JSON.stringify(read))
      assert.equal((await hits.read('a'))?.count, 2, 'reading does not count')
      await hits.reset('a')
      assert.deepEqual(await hits.read('a'), { count: 0, remainingMs: 0 })
      assert.equal((await hits.read('b'))?.count, 1, 'a reset forgets one key only')
    })

    test('a fixed window ends its time after the first hit, and the count starts again', async () => {
      const subject = makeSubject()
      const counters = subject.store().counters(`fixed-${randomUUID()}`)
      const window: Window = { windowMs: subject.windowMs, ends: 'fixed' }
      const first = await counters.increment('k', window)
      assert.equal(first?.count, 1)
      assert.ok(first && first.remainingMs > 0 && first.remainingMs <= subject.windowMs)
      const second = await counters.increment('k', window)
      assert.equal(second?.count, 2)
      assert.ok(second && second.remainingMs <= first.remainingMs, 'a later hit does not move the end')
      await subject.pass(
        subject.windowMs,
        () => counters.read('k'),
        (count) => count.count === 0,
      )
      assert.deepEqual(await counters.read('k'), { count: 0, remainingMs: 0 })
      assert.equal((await counters.increment('k', window))?.count, 1)
    })

    test('a renewed window ends its time after the latest hit', async () => {
      const subject = makeSubject()
      const counters = subject.store().counters(`renewed-${randomUUID()}`)
      const window: Window = { windowMs: 10_000, ends: 'renewed' }
      await counters.increment('k', window)
      // Most of a second passes: the count is still there, its end nearer.
      await subject.pass(
        1_000,
        () => counters.read('k'),
        (count) => count.remainingMs <= 9_000,
      )
      const before = await counters.read('k')
      assert.equal(before?.count, 1)
      assert.equal((await counters.increment('k', window))?.count, 2)
      const after = await counters.read('k')
      assert.ok(
        before && after && after.remainingMs > before.remainingMs,
        `${JSON.stringify(before)} then ${JSON.stringify(after)}`,
      )
    })

    test('the limits count on it: lock-out, token failures, contact form, reset allowance', async () => {
      const store = makeSubject().store()
      const lockout = createLockout(store)
      const key = `client-${randomUUID()}`
      for (let i = 0; i < MAX_FAILURES - 1; i++) await lockout.recordFailure(key)
      assert.equal(await lockout.isLocked(key), false)
      await lockout.recordFailure(key)
      assert.equal(await lockout.isLocked(key), true)
      await lockout.reset(key)
      assert.equal(await lockout.isLocked(key), false)

      const failures = createFailureLimit(store, 2)
      const address = `203.0.113.${Math.floor(Math.random() * 250)}-${randomUUID()}`
      await failures.recordFailure(address)
      assert.equal(await failures.blocked(address), undefined)
      await failures.recordFailure(address)
      const wait = await failures.blocked(address)
      assert.ok(wait !== undefined && wait > 0 && wait <= 60_000, String(wait))

      const contact = createContactLimit(store, 1)
      const sender = `sender-${randomUUID()}`
      assert.equal(await contact.take(sender), undefined)
      const contactWait = await contact.take(sender)
      assert.ok(contactWait !== undefined && contactWait > 0 && contactWait <= 3_600_000)

      const resets = createResetLimit(store)
      const account = `account:${randomUUID()}`
      assert.deepEqual(
        [await resets.take(account, 2), await resets.take(account, 2), await resets.take(account, 2)],
        [true, true, false],
      )
    })
  })
}

test('memory: each set of counters keeps its own bounded keys, the least recently used going first', async () => {
  const store = memoryCounters(() => 0, 2)
  const window: Window = { windowMs: 1000, ends: 'fixed' }
  const flooded = store.counters('flooded')
  const quiet = store.counters('quiet')
  await quiet.increment('kept', window)
  for (const key of ['a', 'b', 'c']) await flooded.increment(key, window)
  assert.equal((await flooded.read('a'))?.count, 0, 'the oldest key went')
  assert.equal((await flooded.read('c'))?.count, 1)
  assert.equal((await quiet.read('kept'))?.count, 1, 'another set of counters keeps its keys')
})

test('memory: a lock-out lasts 15 minutes after the latest failure', async () => {
  let clock = 0
  const lockout = createLockout(memoryCounters(() => clock))
  for (let i = 0; i < MAX_FAILURES; i++) await lockout.recordFailure('k')
  clock += LOCKOUT_MS - 1
  assert.equal(await lockout.isLocked('k'), true)
  await lockout.recordFailure('k')
  clock += LOCKOUT_MS - 1
  assert.equal(await lockout.isLocked('k'), true, 'the latest failure renewed it')
  clock += 1
  assert.equal(await lockout.isLocked('k'), false)
})

describe('counter store: Redis shared by processes', {
  skip: redisUp ? false : 'Redis does not answer',
}, () => {
  test('two stores on two connections share one count, one key per count with its expiry', async () => {
    const name = `shared-${randomUUID()}`
    const noError = (error: unknown) => assert.fail(String(error))
    const one = redisCounters(connection(), prefix, noError).counters(name)
    const two = redisCounters(connection(), prefix, noError).counters(name)
    const window: Window = { windowMs: 60_000, ends: 'fixed' }
    assert.equal((await one.increment('k', window))?.count, 1)
    assert.equal((await two.increment('k', window))?.count, 2)
    assert.equal((await one.read('k'))?.count, 2)
    const raw = connection()
    assert.equal(await raw.get(`${prefix}${name}:k`), '2')
    const ttl = await raw.pttl(`${prefix}${name}:k`)
    assert.ok(ttl > 0 && ttl <= 60_000, String(ttl))
    await two.reset('k')
    assert.equal(await raw.exists(`${prefix}${name}:k`), 0)
  })

  test('concurrent hits through two stores are each counted once', async () => {
    const name = `concurrent-${randomUUID()}`
    const noError = (error: unknown) => assert.fail(String(error))
    const stores = [
      redisCounters(connection(), prefix, noError).counters(name),
      redisCounters(connection(), prefix, noError).counters(name),
    ]
    const window: Window = { windowMs: 60_000, ends: 'fixed' }
    const counts = await Promise.all(
      Array.from({ length: 40 }, (_, i) => stores[i % 2]?.increment('k', window)),
    )
    assert.deepEqual(
      counts.map((counted) => counted?.count).sort((a = 0, b = 0) => a - b),
      Array.from({ length: 40 }, (_, i) => i + 1),
    )
  })
})

test('Redis unreachable: the store answers undefined and reports; the limits fail open, the reset allowance closed', async () => {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = listeningPort(closed)
  await new Promise<void>((resolve) => closed.close(() => resolve()))
  const reported: string[] = []
  // Without the offline queue a command fails at once instead of after the reconnection attempts.
  const down = connection(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 0, enableOfflineQueue: false })
  const store = redisCounters(down, prefix, (_error, name) => {
    reported.push(name)
  })
  const counters = store.counters('down')
  assert.equal(await counters.increment('k', { windowMs: 1000, ends: 'fixed' }), undefined)
  assert.equal(await counters.increment('k', { windowMs: 1000, ends: 'renewed' }), undefined)
  assert.equal(await counters.read('k'), undefined)
  await counters.reset('k')
  assert.deepEqual(reported, ['down', 'down', 'down', 'down'])

  const lockout = createLockout(store, 1)
  await lockout.recordFailure('k')
  assert.equal(await lockout.isLocked('k'), false, 'a lock-out lets the request through')
  const failures = createFailureLimit(store, 1)
  await failures.recordFailure('a')
  assert.equal(await failures.blocked('a'), undefined, 'the token failure limit lets it through')
  const contact = createContactLimit(store, 1)
  assert.equal(await contact.take('a'), undefined)
  assert.equal(await contact.take('a'), undefined, 'the contact form lets it through')
  assert.equal(await createResetLimit(store).take('account:1', 3), false, 'no reset email without a count')
})
