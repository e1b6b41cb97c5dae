import type { Clock } from '../../src/works/sources/pacer.js'

/**
 * A clock for pacing tests: time stands still while a tracked request runs, and moves to the earliest
 * sleeper's wake-up time only when none does. A request log stamped with it shows the instants the
 * pacer chose, whatever the machine's speed; no test waits real seconds.
 */
export class VirtualClock implements Clock {
  private time: number
  private busy = 0
  private sleepers: { at: number; wake: () => void; order: number }[] = []
  private order = 0

  constructor(start = Date.UTC(2026, 0, 5, 12)) {
    this.time = start
  }

  now = (): number => this.time

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      signal?.throwIfAborted()
      const sleeper = { at: this.time + Math.max(0, ms), wake: resolve, order: this.order++ }
      this.sleepers.push(sleeper)
      signal?.addEventListener(
        'abort',
        () => {
          this.sleepers = this.sleepers.filter((other) => other !== sleeper)
          reject(signal.reason)
        },
        { once: true },
      )
      this.schedule()
    })

  track = (work: Promise<unknown>): void => {
    this.busy += 1
    const done = () => {
      this.busy -= 1
      this.schedule()
    }
    work.then(done, done)
  }

  private schedule(): void {
    setImmediate(() => {
      if (this.busy > 0 || this.sleepers.length === 0) return
      this.sleepers.sort((a, b) => a.at - b.at || a.order - b.order)
      const next = this.sleepers.shift()
      if (!next) return
      this.time = Math.max(this.time, next.at)
      next.wake()
      this.schedule()
    })
  }
}
