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

/**
 * Hands out usernames to many new profiles at once (an import), at a constant cost per profile
 * however many share a name: for each base it remembers the next suffix to try, and asks `taken`
 * about a whole round of candidates at once instead of probing them one by one. Profiles of the same
 * base get `base`, `base-2`, `base-3`, ... in the order given, skipping names handed out before.
 */
export class UsernameAssigner {
  /** Base -> the next suffix to try (1 is the base itself). */
  private readonly next = new Map<string, number>()

  /** `taken`: of the candidates, those already handed out in the organization. */
  constructor(private readonly taken: (candidates: string[]) => Promise<Set<string>>) {}

  async assign(bases: readonly string[]): Promise<string[]> {
    const names: string[] = new Array(bases.length)
    let waiting = new Map<string, number[]>()
    bases.forEach((base, index) => {
      const positions = waiting.get(base)
      if (positions) positions.push(index)
      else waiting.set(base, [index])
    })
    while (waiting.size > 0) {
      const round = new Map<string, string[]>()
      for (const [base, positions] of waiting) {
        const from = this.next.get(base) ?? 1
        round.set(
          base,
          Array.from({ length: positions.length }, (_, i) => (from + i === 1 ? base : `${base}-${from + i}`)),
        )
        this.next.set(base, from + positions.length)
      }
      const taken = await this.taken([...round.values()].flat())
      const still = new Map<string, number[]>()
      for (const [base, positions] of waiting) {
        const free = (round.get(base) ?? []).filter((candidate) => !taken.has(candidate))
        positions.forEach((position, i) => {
          const name = free[i]
          if (name !== undefined) names[position] = name
        })
        if (positions.length > free.length) still.set(base, positions.slice(free.length))
      }
      waiting = still
    }
    return names
  }
}
