import { type RawBuilder, type SqlBool, sql } from 'kysely'
import type { Audience } from '../db/schema.js'

export type { Audience } from '../db/schema.js'

/**
 * What each audience may see (CONTRACT §17), in one place for every reader of profiles, posts and Q&A
 * items: `all` (a token with `read`) sees everything of its organization; `public` (`read:public`
 * without `read`) sees only published, non-private profiles and published items, and of an item only
 * the profiles it may see. Anything else reads as missing.
 */

/** What a reader whose token holds `scopes` may see: everything with `read`, else only what is public. */
export function audienceOf(scopes: readonly string[]): Audience {
  return scopes.includes('read') ? 'all' : 'public'
}

/** The flags every kind of profile carries. */
export interface ProfileFlags {
  is_published: number
  is_private: number
}

export function profileVisibleTo(audience: Audience, profile: ProfileFlags): boolean {
  return audience === 'all' || (profile.is_published === 1 && profile.is_private === 0)
}

export function itemVisibleTo(audience: Audience, item: { published: number }): boolean {
  return audience === 'all' || item.published === 1
}

/**
 * The audience as two numbers a visible profile's flags meet (`is_published >= min_published and
 * is_private <= max_private`): a query compiled once (src/db/reusable-query.ts) takes them as
 * parameters and serves both audiences with one statement.
 */
export interface VisibilityBounds {
  minPublished: number
  maxPrivate: number
}

export function visibilityBounds(audience: Audience): VisibilityBounds {
  return audience === 'public' ? { minPublished: 1, maxPrivate: 0 } : { minPublished: 0, maxPrivate: 1 }
}

/** The condition "the profile in `alias` (a table with the two flags) is visible within `bounds`". */
export function profileVisibleWithin(alias: string, bounds: VisibilityBounds): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.ref(`${alias}.is_published`)} >= ${bounds.minPublished} and ${sql.ref(`${alias}.is_private`)} <= ${bounds.maxPrivate})`
}

/** `profileVisibleWithin` for an audience known when the query is built. */
export function profileVisibleSql(alias: string, audience: Audience): RawBuilder<SqlBool> {
  return profileVisibleWithin(alias, visibilityBounds(audience))
}
