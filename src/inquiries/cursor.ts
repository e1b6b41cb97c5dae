import { validationError } from '../errors.js'

/**
 * The inbox's paging cursor: opaque to clients (base64url), it holds the id the next page continues
 * below. Anything that does not decode to exactly that is refused, so a cursor cannot be mistaken
 * for another value or tampered into a query.
 */

const PREFIX = 'inq1.'
const ID = /^[1-9][0-9]{0,15}$/

export function encodeCursor(before: number): string {
  return Buffer.from(`${PREFIX}${before}`, 'utf8').toString('base64url')
}

/** The id encoded in `cursor`, or undefined when it is not a cursor this service issued. */
export function decodeCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined
  const text = Buffer.from(cursor, 'base64url').toString('utf8')
  if (!text.startsWith(PREFIX)) return undefined
  const digits = text.slice(PREFIX.length)
  if (!ID.test(digits) || Number(digits) > Number.MAX_SAFE_INTEGER) return undefined
  // Only the canonical spelling: another encoding of the same bytes is not one we issued.
  return encodeCursor(Number(digits)) === cursor ? Number(digits) : undefined
}

/** `decodeCursor` for a request: a bad cursor is a 400 naming the `cursor` parameter. */
export function cursorParameter(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined
  const before = decodeCursor(cursor)
  if (before === undefined) {
    throw validationError([
      {
        field: 'cursor',
        message: 'is not a cursor from this inbox: pass next_cursor exactly as it was returned',
      },
    ])
  }
  return before
}
