import { boundedEntries } from '../auth/bounded-entries.js'
import { ApiError } from '../errors.js'

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

const MINUTE_MS = 60_000

/**
 * Uploads per minute per access token, in this process (like the image queue it protects): the
 * `max + 1`-th upload of a minute is 429 with `Retry-After`, before its body is read. `max` 0: no limit.
 */
export function uploadRateLimit(
  max: number,
  now: () => number,
  maxEntries = 100_000,
): ((tokenHash: string) => void) | undefined {
  if (max === 0) return undefined
  const windows = boundedEntries<{ count: number; resetAt: number }>(maxEntries)
  return (tokenHash) => {
    const current = windows.get(tokenHash)
    const window = current && current.resetAt > now() ? current : { count: 0, resetAt: now() + MINUTE_MS }
    window.count += 1
    windows.set(tokenHash, window)
    if (window.count > max) {
      const seconds = Math.max(1, Math.ceil((window.resetAt - now()) / 1000))
      throw new ApiError('rate_limited', `Too many uploads: retry in ${seconds} seconds.`, {
        headers: { 'retry-after': String(seconds) },
      })
    }
  }
}
