/**
 * The one store under every windowed limit (client lock-outs, token failures, sign-in lock-outs,
 * password-reset allowances, the directory's contact form, uploads): counts per key that end with their
 * window. Two implementations: in memory (one process; src/limits/memory-counters.ts) and in Redis
 * (shared by every server process; src/limits/redis-counters.ts). The app picks one, once; a limit says
 * only its name, window and maximum.
 */
export interface CounterStore {
  /**
   * The counters of one limit, named `name`: in Redis its keys are `<prefix><name>:<key>`, so limits that
   * share a name share their counts; in memory each call keeps its own bounded set of counts (the least
   * recently used go first), so that one limit flooded with keys cannot push out another's.
   */
  counters(name: string): Counters
}

/** A key's count in its current window. */
export interface WindowCount {
  /** Hits counted since the window opened (0: no window open). */
  readonly count: number
  /** Milliseconds until the window ends and the count is gone (0 when none is open or its end is unknown). */
  readonly remainingMs: number
}

/**
 * How a count ends: `fixed`, `windowMs` after the hit that opened it (later hits do not move it);
 * `renewed`, `windowMs` after the latest hit (a lock-out lasts as long as the failures go on).
 */
export interface Window {
  readonly windowMs: number
  readonly ends: 'fixed' | 'renewed'
}

/**
 * Counts per key. Every method answers `undefined` when the store cannot be reached (Redis down or
 * failing, the error reported to the store's `onError`): each limit decides whether it then lets the
 * request through (most do: the service stays up) or refuses it.
 */
export interface Counters {
  /** Counts one hit of `key`, opening a window when none is open; the count with this hit. */
  increment(key: string, window: Window): Promise<WindowCount | undefined>
  /** The count of `key` without counting. */
  read(key: string): Promise<WindowCount | undefined>
  /** Forgets the count of `key` (a success ends a run of failures). */
  reset(key: string): Promise<void>
}

/** No count at all. */
export const NO_COUNT: WindowCount = { count: 0, remainingMs: 0 }
