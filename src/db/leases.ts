/**
 * The two halves of leased background work that the inquiry outbox and the works schedule share. Each
 * takes due rows by setting a lease (`locked_until`, `lock_token`) in one statement; while it works on
 * them it renews the lease, so that no other process takes them over; a process that dies stops
 * renewing and its rows are taken again after one lease. A loop repeats the pass: at once while passes
 * come back full, otherwise after the poll interval.
 */

/** Renews a lease every third of `leaseMs` until the returned function is called; a failed renewal is told, not thrown. */
export function keepRenewing(
  renew: () => Promise<unknown>,
  leaseMs: number,
  onError: (error: unknown) => void,
): () => void {
  const timer = setInterval(() => {
    renew().catch(onError)
  }, leaseMs / 3)
  timer.unref()
  return () => clearInterval(timer)
}

export interface PollingLoop {
  start(): void
  /** Ends the loop after the pass under way, without waiting out the pause. */
  stop(): Promise<void>
}

/**
 * Runs `pass` again and again until stopped: at once when it answers true (a full batch: more is due),
 * otherwise after `pollMs`; a pass that throws is told and tried again after `pollMs`.
 */
export function pollingLoop(
  pass: () => Promise<boolean>,
  pollMs: number,
  onError: (error: unknown) => void,
): PollingLoop {
  let running: Promise<void> | undefined
  let stopping = false
  let wake: (() => void) | undefined
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })

  async function loop(): Promise<void> {
    while (!stopping) {
      let busy = false
      try {
        busy = await pass()
      } catch (error) {
        onError(error)
      }
      if (!busy && !stopping) await pause(pollMs)
    }
  }

  return {
    start() {
      stopping = false
      running ??= loop()
    },
    async stop() {
      stopping = true
      wake?.()
      await running
      running = undefined
    },
  }
}
