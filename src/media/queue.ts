import { ApiError } from '../errors.js'
import type { CounterStore, Window } from '../limits/counter-store.js'

/** What a full queue tells the client to wait before trying again, in seconds. */
const BUSY_RETRY_SECONDS = 10

/**
 * The process's image work (decoding and encoding uploads): at most `concurrency` jobs at once and
 * `maxWaiting` more waiting their turn; one more is refused at once with 503 and `Retry-After`, so
 * that a burst of uploads costs bounded CPU and memory instead of all running together.
 */
export class ImageQueue {
  #running = 0
  readonly #waiting: (() => void)[] = []

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
  ) {}

  /** Runs `work` when its turn comes; 503 `unavailable` at once when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.concurrency) {
      if (this.#waiting.length >= this.maxWaiting)
        throw new ApiError(
          'unavailable',
          `The server is busy with other images: retry in ${BUSY_RETRY_SECONDS} seconds.`,
          { headers: { 'retry-after': String(BUSY_RETRY_SECONDS) } },
        )
      await new Promise<void>((resolve) => this.#waiting.push(resolve))
    } else this.#running++
    try {
      return await work()
    } finally {
      // The slot passes straight to the next waiting job, so a new arrival never jumps the queue.
      const next = this.#waiting.shift()
      if (next) next()
      else this.#running--
    }
  }

  /** Jobs running and waiting (tests, metrics). */
  get stats(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length }
  }
}

const UPLOAD_WINDOW: Window = { windowMs: 60_000, ends: 'fixed' }

/**
 * Uploads per minute per access token, counted in `store`: the `max + 1`-th upload of a minute is 429
 * with `Retry-After`, before its body is read. `max` 0: no limit. A store that cannot count lets the
 * upload through.
 */
export function uploadRateLimit(
  store: CounterStore,
  max: number,
): ((tokenHash: string) => Promise<void>) | undefined {
  if (max === 0) return undefined
  const uploads = store.counters('uploads')
  return async (tokenHash) => {
    const counted = await uploads.increment(tokenHash, UPLOAD_WINDOW)
    if (counted && counted.count > max) {
      const seconds = Math.max(1, Math.ceil(counted.remainingMs / 1000))
      throw new ApiError('rate_limited', `Too many uploads: retry in ${seconds} seconds.`, {
        headers: { 'retry-after': String(seconds) },
      })
    }
  }
}
