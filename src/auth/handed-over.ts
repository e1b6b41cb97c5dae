import type { IncomingMessage } from 'node:http'
import { type ReadTarget, targetKey } from '../kept-reads/read-targets.js'
import type { Resolution } from './principals.js'

interface HandedOver {
  token: string
  target: string | undefined
  resolution: Resolution | undefined
}

const checked = new WeakMap<IncomingMessage, HandedOver>()

const keyOf = (target: ReadTarget | undefined) => (target ? targetKey(target) : undefined)

/**
 * Token checks the kept-read lane (src/kept-reads/kept-read-lane.ts) made for a request it then handed on to
 * Fastify (no kept body for that version): the bearer hook takes the answer instead of checking the
 * same token for the same target again, a second statement on PostgreSQL. The check was made when the
 * request arrived, as the hook's own would be.
 */
export function handOver(
  request: IncomingMessage,
  token: string,
  target: ReadTarget,
  resolution: Resolution | undefined,
): void {
  checked.set(request, { token, target: keyOf(target), resolution })
}

/** The lane's check of this token for this target on this request, once; undefined when it made none. */
export function takeHandedOver(
  request: IncomingMessage,
  token: string,
  target: ReadTarget | undefined,
): { resolution: Resolution | undefined } | undefined {
  const found = checked.get(request)
  if (!found) return undefined
  checked.delete(request)
  return found.token === token && found.target === keyOf(target)
    ? { resolution: found.resolution }
    : undefined
}
