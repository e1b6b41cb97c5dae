import type { Redis } from 'ioredis'
import type { CounterStore, Counters, WindowCount } from './counter-store.js'

type Results = [error: Error | null, result: unknown][] | null

/** The replies of a MULTI, or the error of its first failed command. */
function repliesOf(results: Results): unknown[] {
  if (!results) throw new Error('the Redis transaction was aborted')
  return results.map(([error, result]) => {
    if (error) throw error
    return result
  })
}

/**
 * Counts shared by every server process: one key per count, `<prefix><name>:<key>`, that expires with
 * its window; each step is one MULTI, so concurrent processes never lose a hit. When Redis fails the
 * error goes to `onError` (with the counters' name) and the answer is `undefined`.
 */
export function redisCounters(
  redis: Redis,
  prefix: string,
  onError: (error: unknown, name: string) => void,
): CounterStore {
  return {
    counters(name): Counters {
      const keyOf = (key: string) => `${prefix}${name}:${key}`
      const reported = (error: unknown) => {
        onError(error, name)
        return undefined
      }
      return {
        async increment(key, { windowMs, ends }) {
          const stored = keyOf(key)
          try {
            if (ends === 'renewed') {
              const [count] = repliesOf(await redis.multi().incr(stored).pexpire(stored, windowMs).exec())
              return { count: Number(count), remainingMs: windowMs }
            }
            const [, count, ttl] = repliesOf(
              await redis.multi().set(stored, 0, 'PX', windowMs, 'NX').incr(stored).pttl(stored).exec(),
            )
            return { count: Number(count), remainingMs: Number(ttl) > 0 ? Number(ttl) : windowMs }
          } catch (error) {
            return reported(error)
          }
        },
        async read(key): Promise<WindowCount | undefined> {
          const stored = keyOf(key)
          try {
            const [count, ttl] = repliesOf(await redis.multi().get(stored).pttl(stored).exec())
            return { count: Number(count ?? 0), remainingMs: Math.max(0, Number(ttl)) }
          } catch (error) {
            return reported(error)
          }
        },
        async reset(key) {
          await redis.del(keyOf(key)).catch(reported)
        },
      }
    },
  }
}
