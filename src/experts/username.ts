import { randomBytes } from 'node:crypto'
import slugify from 'slugify'

const MAX_LENGTH = 64
/** Room left for a `-NNNN` suffix when a slug is taken. */
const BASE_LENGTH = MAX_LENGTH - 6

/** `José Müller` -> `jose-muller`; names with no Latin letters -> `expert-` plus a random suffix. */
export function usernameBase(firstname: string, lastname: string): string {
  const slug = slugify(`${firstname} ${lastname}`, { lower: true, strict: true, trim: true })
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-+/g, '-')
    .slice(0, BASE_LENGTH)
    .replace(/^-|-$/g, '')
  if (!/[a-z]/.test(slug)) return `expert-${randomBytes(4).toString('hex')}`
  return slug.length < 3 ? `expert-${slug}` : slug
}

/** The usernames to try in order: `base`, `base-2`, `base-3`, ... */
export function* usernameCandidates(base: string): Generator<string, never> {
  yield base
  for (let n = 2; ; n++) yield `${base}-${n}`
}
