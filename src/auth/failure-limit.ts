import { isIPv6 } from 'node:net'
import type { CounterStore, Window } from '../limits/counter-store.js'

/** The window of the per-address limit on failed client authentications. */
export const FAILURE_WINDOW_MS = 60_000
const WINDOW: Window = { windowMs: FAILURE_WINDOW_MS, ends: 'fixed' }

/**
 * Failed client authentications per address and minute, whatever client id they name. Each check of a
 * secret costs a full scrypt (an unknown client id too, so that timing does not tell it apart), so the
 * lock-out per (client id, address) alone bounds nothing against random client ids; this does. Only
 * failures count: an address's successful authentications are never refused because of each other.
 */
export interface FailureLimit {
  /** Milliseconds until `address` may try again when it used up its failures, else undefined. */
  blocked(address: string): Promise<number | undefined>
  recordFailure(address: string): Promise<void>
}

/** No limit (`EXPERTDIR_RATE_LIMIT_TOKEN_FAILURES=0`). */
export const noFailureLimit: FailureLimit = {
  async blocked() {
    return undefined
  },
  async recordFailure() {},
}

/**
 * At most `max` failures per address in fixed one-minute windows (`auth-failures:<address>`). A store
 * that cannot count lets the attempt through, as the rate limits do.
 */
export function createFailureLimit(store: CounterStore, max: number): FailureLimit {
  if (max === 0) return noFailureLimit
  const failures = store.counters('auth-failures')
  return {
    async blocked(address) {
      const counted = await failures.read(address)
      if (!counted || counted.count < max) return undefined
      return counted.remainingMs > 0 ? counted.remainingMs : FAILURE_WINDOW_MS
    },
    async recordFailure(address) {
      await failures.increment(address, WINDOW)
    },
  }
}

/** Secret checks one address may have running at once in one process (libuv's default thread pool). */
export const CHECKS_PER_ADDRESS = 4
/** Requests of one address that may wait for a check; more are refused at once. */
export const WAITING_PER_ADDRESS = 64

/**
 * Lets at most `perAddress` secret checks of one address run at once in this process; the others wait
 * their turn (and look at the failure count again when they get it). So concurrent requests cannot
 * overshoot the failure limit by more than the checks already running, and a burst of good requests
 * from one address is served in turn rather than refused.
 */
export function addressGate(perAddress = CHECKS_PER_ADDRESS, maxWaiting = WAITING_PER_ADDRESS) {
  const gates = new Map<string, { running: number; waiting: (() => void)[] }>()
  const leave = (address: string) => {
    const gate = gates.get(address)
    if (!gate) return
    const next = gate.waiting.shift()
    if (next) next()
    else if (--gate.running === 0) gates.delete(address)
  }
  return {
    /** Resolves with the function that lets the next one in; undefined when too many already wait. */
    async enter(address: string): Promise<(() => void) | undefined> {
      const gate = gates.get(address) ?? { running: 0, waiting: [] }
      gates.set(address, gate)
      if (gate.running < perAddress) {
        gate.running += 1
      } else {
        if (gate.waiting.length >= maxWaiting) return undefined
        await new Promise<void>((resolve) => gate.waiting.push(resolve))
      }
      let left = false
      return () => {
        if (left) return
        left = true
        leave(address)
      }
    },
  }
}

export type AddressGate = ReturnType<typeof addressGate>

/**
 * The address a limit counts under: an IPv4 address as it is (also when IPv4-mapped), an IPv6 address
 * by its /64 prefix, the smallest block one subscriber is usually given, so that an attacker cannot
 * step through the 2^64 addresses of its own network.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip)
  if (mapped?.[1]) return mapped[1]
  if (!isIPv6(ip)) return ip
  const groupsOf = (part: string) =>
    part === '' ? [] : part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group]))
  const [head = '', tail = ''] = ip.replace(/%.*$/, '').split('::')
  const written = [...groupsOf(head), ...groupsOf(tail)]
  const groups = ip.includes('::')
    ? [...groupsOf(head), ...Array(8 - written.length).fill('0'), ...groupsOf(tail)]
    : written
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`
}
