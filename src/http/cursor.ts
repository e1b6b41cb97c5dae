import { validationError } from '../errors.js'

/**
 * Opaque paging cursors for lists read newest first by id (the audit log, the webhook's delivery log;
 * CONTRACT §11): base64url of `<prefix><id>`, the id the next page continues below. Only the canonical
 * spelling of a cursor of the same list decodes, so a cursor cannot be tampered into another value
 * nor passed to another list.
 */
export interface IdCursor {
  encode(before: number): string
  /** The id `cursor` continues below, or undefined when this list did not issue it. */
  decode(cursor: string): number | undefined
  /** The id a `cursor` parameter continues below; anything this list did not issue is a 400. */
  parameter(cursor: string | undefined): number | undefined
}

const ID = /^[1-9][0-9]{0,15}$/

export function idCursor(prefix: string, list: string): IdCursor {
  const encode = (before: number) => Buffer.from(`${prefix}${before}`, 'utf8').toString('base64url')
  const decode = (cursor: string): number | undefined => {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined
    const text = Buffer.from(cursor, 'base64url').toString('utf8')
    if (!text.startsWith(prefix)) return undefined
    const digits = text.slice(prefix.length)
    if (!ID.test(digits) || Number(digits) > Number.MAX_SAFE_INTEGER) return undefined
    return encode(Number(digits)) === cursor ? Number(digits) : undefined
  }
  return {
    encode,
    decode,
    parameter(cursor) {
      if (cursor === undefined) return undefined
      const before = decode(cursor)
      if (before === undefined) {
        throw validationError([
          {
            field: 'cursor',
            message: `is not a cursor from ${list}: pass next_cursor exactly as it was returned`,
          },
        ])
      }
      return before
    },
  }
}
