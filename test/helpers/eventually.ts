export interface EventuallyOptions {
  /** What is waited for, as the end of "timed out waiting until ...". */
  what: string
  /** The deadline: it bounds a hang, it is not a timing assertion. */
  timeoutMs: number
  /** Pause between checks (default 50 ms). */
  intervalMs?: number
  /** More to say when the deadline passes (the output so far, say). */
  detail?: () => string
}

/**
 * Checks `check` until it returns a value other than `undefined`, `null` or `false`, and returns that
 * value; throws once `timeoutMs` has passed without one. An error thrown by `check` ends the wait.
 */
export async function eventually<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: EventuallyOptions,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== null && value !== false) return value
    if (Date.now() > deadline) {
      const detail = options.detail ? `: ${options.detail()}` : ''
      throw new Error(`timed out after ${options.timeoutMs} ms waiting until ${options.what}${detail}`)
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50))
  }
}
