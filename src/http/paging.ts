import { type TSchema, Type } from 'typebox'

/**
 * The query and answer of a list read a page at a time by cursor (`page_size`, `cursor`, `next_cursor`),
 * shared by the lists that page newest first (the admin API's, the works importer's).
 */

export const DEFAULT_PAGE_SIZE = 20
export const MAX_PAGE_SIZE = 100

/** `page_size` and `cursor`; `firstPage` names what a request without a cursor reads ("the first page"). */
export function cursorPaging(firstPage: string) {
  return {
    page_size: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: DEFAULT_PAGE_SIZE,
        description: `Entries per page, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`,
        'x-message': `must be an integer from 1 to ${MAX_PAGE_SIZE}`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: `The previous page's next_cursor; omit it for ${firstPage}`,
        'x-message': 'must be the next_cursor of a previous page',
      }),
    ),
  }
}

/** A schema or null, described. */
export const nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description })

export const NextCursor = nullable(Type.String(), 'Pass as cursor for the next page; null on the last page')
