import { CompiledQuery } from 'kysely'
import { CONTENT_KIND_NAMES, CONTENT_KINDS, type ContentKind } from '../db/content-kinds.js'
import type { DialectName, Queryable } from '../db/database.js'
import type { ReadConnection } from '../db/read-connection.js'
import type { ProfileType } from '../db/schema.js'
import { USERNAME_PATTERN } from '../http/params.js'
import { isPositiveId } from '../validation/text.js'

/**
 * What a kept read (src/kept-reads/kept-reads.ts) is built from, and the version that labels it. A read's
 * body depends only on its URL, its audience and the versions the write path bumps in each write's
 * own transaction (docs/performance.md, "Versions"):
 *
 * - a profile and its sections: the expert's `doc_version` and its organization's `profile_version`;
 * - a post or a Q&A item: its `doc_version`;
 * - the three searches: the organization's search version, raised by every change to its experts,
 *   posts or questions (src/derived/changes.ts).
 *
 * A missing record has no version (`null`); its read is never kept.
 */
export type ReadTarget =
  | { kind: 'expert'; orgId: number; type: ProfileType; username: string }
  | { kind: ContentKind; orgId: number; id: number }
  | { kind: 'search'; orgId: number }

export type ReadTargetKind = ReadTarget['kind']

/** A key naming the target within its database. */
export function targetKey(target: ReadTarget): string {
  switch (target.kind) {
    case 'expert':
      return `expert:${target.orgId}:${target.type}:${target.username}`
    case 'search':
      return `search:${target.orgId}`
    default:
      return `${target.kind}:${target.orgId}:${target.id}`
  }
}

/** Writes the `n`th parameter (1-based) of a statement; `type` is the SQL type it is compared with. */
export type Placeholder = (n: number, type: 'bigint' | 'text') => string

/** The statement reading the version of a target of `kind`, its parameters written by `placeholder`. */
export function versionStatement(kind: ReadTargetKind, placeholder: Placeholder): string {
  switch (kind) {
    case 'expert':
      return `select cast(e.doc_version as text) || '.' || cast(o.profile_version as text) as version
        from experts e join organizations o on o.id = e.org_id
        where e.org_id = ${placeholder(1, 'bigint')} and e.username = ${placeholder(2, 'text')}
          and e.type = ${placeholder(3, 'text')}`
    case 'search':
      return `select cast(coalesce(max(v.version), 0) as text) as version
        from expert_search_versions v where v.org_id = ${placeholder(1, 'bigint')}`
    default:
      return `select cast(i.doc_version as text) as version
        from ${CONTENT_KINDS[kind].table} i
        where i.org_id = ${placeholder(1, 'bigint')} and i.id = ${placeholder(2, 'bigint')}`
  }
}

/** The parameters of the target's version statement, in order. */
export function versionParameters(target: ReadTarget): (string | number)[] {
  switch (target.kind) {
    case 'expert':
      return [target.orgId, target.username, target.type]
    case 'search':
      return [target.orgId]
    default:
      return [target.orgId, target.id]
  }
}

export const READ_TARGET_KINDS: readonly ReadTargetKind[] = ['expert', ...CONTENT_KIND_NAMES, 'search']

/** The version statement of a target and its parameters. */
export function targetVersionSql(
  target: ReadTarget,
  placeholder: Placeholder,
): { text: string; values: (string | number)[] } {
  return { text: versionStatement(target.kind, placeholder), values: versionParameters(target) }
}

export const sqlitePlaceholder: Placeholder = () => '?'
export const postgresPlaceholder: Placeholder = (n) => `$${n}`

function versionOf(rows: readonly Record<string, unknown>[]): string | null {
  const version = rows[0]?.version
  return typeof version === 'string' ? version : null
}

/** The target's version on the SQLite read connection. */
export function readTargetVersion(connection: ReadConnection, target: ReadTarget): string | null {
  const { text, values } = targetVersionSql(target, sqlitePlaceholder)
  return versionOf(connection.all(text, values))
}

/** The target's version through Kysely (no read connection, or it was busy). */
export async function queryTargetVersion(
  db: Queryable,
  dialect: DialectName,
  target: ReadTarget,
): Promise<string | null> {
  const { text, values } = targetVersionSql(
    target,
    dialect === 'postgres' ? postgresPlaceholder : sqlitePlaceholder,
  )
  const { rows } = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, values))
  return versionOf(rows)
}

/** Route parameters as the router gives them (not yet validated): strings. */
function param(params: unknown, name: string): string | undefined {
  if (typeof params !== 'object' || params === null || !Object.hasOwn(params, name)) return undefined
  const value: unknown = Reflect.get(params, name)
  return typeof value === 'string' ? value : undefined
}

function corporationOf(params: unknown): number | undefined {
  const corporation = param(params, 'corporation')
  return corporation !== undefined && isPositiveId(corporation) ? Number(corporation) : undefined
}

/**
 * How a route names its target from its path parameters, before validation: a parameter that the
 * route's schema would refuse gives no target (the read then runs as without a cache, and answers 400).
 */
export type TargetOf = (params: unknown) => ReadTarget | undefined

/** The usernames the routes' schema accepts: any other text (a NUL byte) must not reach a statement. */
const USERNAME = new RegExp(USERNAME_PATTERN)

export function expertTarget(type: ProfileType): TargetOf {
  return (params) => {
    const orgId = corporationOf(params)
    const username = param(params, 'username')
    return orgId !== undefined && username !== undefined && USERNAME.test(username)
      ? { kind: 'expert', orgId, type, username }
      : undefined
  }
}

export function itemTarget(kind: ContentKind): TargetOf {
  return (params) => {
    const orgId = corporationOf(params)
    const id = param(params, 'id')
    return orgId !== undefined && id !== undefined && isPositiveId(id)
      ? { kind, orgId, id: Number(id) }
      : undefined
  }
}

export const searchTarget: TargetOf = (params) => {
  const orgId = corporationOf(params)
  return orgId !== undefined ? { kind: 'search', orgId } : undefined
}
