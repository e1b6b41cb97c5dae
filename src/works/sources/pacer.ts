import { setTimeout as delay } from 'node:timers/promises'

/**
 * Time as the connectors see it. The real clock is the system's; tests pass a virtual one that moves
 * only when every tracked request has finished, so that a request log's timestamps are the pacer's.
 */
export interface Clock {
  now(): number
  sleep(ms: number, signal?: AbortSignal): Promise<void>
  /** Told about each request the pacer lets through; a virtual clock waits for it before moving on. */
  track?(work: Promise<unknown>): void
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : {}),
}

export interface PacerLimits {
  /** Requests started per second, at most. */
  perSecond: number
  /** Requests in flight at once, at most. */
  concurrency: number
}

/**
 * One source's rate budget: requests start at least `1000 / perSecond` ms apart, at most `concurrency`
 * run at once, and none starts before a pause (a 429 or 503 with `Retry-After`) ends. Each source has
 * its own pacer, so a pause stops that source alone.
 */
export class Pacer {
  private lastStart = Number.NEGATIVE_INFINITY
  private pausedUntil = 0
  private running = 0
  private readonly waiting: (() => void)[] = []
  private perSecond: number

  constructor(
    private readonly clock: Clock,
    private readonly limits: PacerLimits,
  ) {
    this.perSecond = limits.perSecond
  }

  /** The rate now (lowered by a source's own rate headers, never above the configured one). */
  get rate(): number {
    return this.perSecond
  }

  /** Follows a source's advertised limit, never above the configured ceiling. */
  adjustRate(perSecond: number): void {
    if (Number.isFinite(perSecond) && perSecond > 0)
      this.perSecond = Math.min(this.limits.perSecond, perSecond)
  }

  /** No request starts before `until` (unix ms); a later pause wins over an earlier one. */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until)
  }

  /** Until when the source is paused (unix ms; in the past when it is not). */
  get pausedUntilMs(): number {
    return this.pausedUntil
  }

  /** Runs `work` when the budget allows. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.enter(signal)
    try {
      await this.waitForTurn(signal)
      const running = work()
      this.clock.track?.(running)
      return await running
    } finally {
      this.leave()
    }
  }

  private async enter(signal?: AbortSignal): Promise<void> {
    if (this.running < this.limits.concurrency) {
      this.running += 1
      return
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(admit)
        if (index !== -1) this.waiting.splice(index, 1)
        reject(signal?.reason)
      }
      const admit = () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.waiting.push(admit)
    })
  }

  private leave(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.running -= 1
  }

  /** Reserves the next start slot, then sleeps until it; sleeps again when a pause began meanwhile. */
  private async waitForTurn(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted()
      const now = this.clock.now()
      // From the last start at today's rate, so a rate lowered by a reply applies to the next request.
      const start = Math.max(now, this.lastStart + 1000 / this.perSecond, this.pausedUntil)
      this.lastStart = start
      if (start > now) await this.clock.sleep(start - now, signal)
      if (this.pausedUntil <= this.clock.now()) return
    }
  }
}

/**
 * When a reply's `Retry-After` (seconds or an HTTP date) lets the client try again, in unix ms;
 * undefined when the header is absent or unreadable.
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined
  const text = header.trim()
  if (/^\d+$/.test(text)) return now + Number(text) * 1000
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(now, date)
}
