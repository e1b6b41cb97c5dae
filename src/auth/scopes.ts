/**
 * The access scopes of CONTRACT §13 and §17. A client holds some of them (chosen at `client create`),
 * a token holds a subset of its client's, and every protected route declares the one it needs in its
 * options: `config: { scope: 'read:public' }`. `read` grants everything `read:public` does.
 */
export const SCOPES = [
  'read',
  'read:public',
  'write',
  'inquiries:create',
  'inquiries:read',
  'inquiries:handle',
  'admin',
] as const

export type Scope = (typeof SCOPES)[number]

/**
 * A new client's scopes when none are chosen: the four of §13 (CONTRACT §17: `read:public`,
 * `inquiries:handle` and `admin` must be asked for by name).
 */
export const DEFAULT_SCOPES: readonly Scope[] = ['read', 'write', 'inquiries:create', 'inquiries:read']

/** Scopes that grant another one besides themselves. */
const IMPLIED_BY: Partial<Record<Scope, readonly Scope[]>> = { 'read:public': ['read'] }

/** Whether a token holding `held` may do what `needed` allows. */
export function grants(held: readonly Scope[], needed: Scope): boolean {
  return held.includes(needed) || (IMPLIED_BY[needed] ?? []).some((scope) => held.includes(scope))
}

/** What each scope allows, as the OpenAPI document and the token endpoint's metadata describe it. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  read: 'Read profiles, posts and Q&A items (every GET under /v2), whatever their flags',
  'read:public':
    'Read what the public may see: published, non-private experts and published posts and Q&A items (a public website)',
  write: 'Create, change and delete experts, profile sections, posts, Q&A items and the organization profile',
  'inquiries:create': 'Send inquiries to experts',
  'inquiries:read': "Read the organization's inquiry inbox",
  'inquiries:handle': 'Change the status, assignee and notes of inquiries',
  admin:
    "Administer the organization: API clients, the webhook, people, single sign-on, the audit log, inquiry notification settings, and export or erasure of a sender's personal data",
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a token needs for this route (required on every route behind the bearer check). */
    scope?: Scope
    /**
     * A different scope for requests that carry a query parameter: the inbox's `?email=` export
     * needs `admin` instead of `inquiries:read`.
     */
    queryScope?: { parameter: string; scope: Scope }
  }
}

export function isScope(value: string): value is Scope {
  return SCOPES.some((scope) => scope === value)
}

/** The space-separated form (RFC 6749 §3.3), in the canonical order of `SCOPES`, without repeats. */
export function formatScopes(scopes: Iterable<Scope>): string {
  const held = new Set(scopes)
  return SCOPES.filter((scope) => held.has(scope)).join(' ')
}

/** Splits a space-separated scope string; returns the known scopes and the unknown words apart. */
export function parseScopes(text: string): { scopes: Scope[]; unknown: string[] } {
  const words = text.split(/[ \t\r\n]+/).filter((word) => word !== '')
  const unique = [...new Set(words)]
  return { scopes: unique.filter(isScope), unknown: unique.filter((word) => !isScope(word)) }
}

/** Stored scope strings already parsed: a token check parses one per request, and there are few. */
const parsedStoredScopes = new Map<string, readonly Scope[]>()
const PARSED_STORED_SCOPES_MAX = 256

/** Scopes as stored in a `scope` column; anything unknown there is dropped rather than trusted. */
export function storedScopes(text: string): readonly Scope[] {
  let scopes = parsedStoredScopes.get(text)
  if (!scopes) {
    if (parsedStoredScopes.size >= PARSED_STORED_SCOPES_MAX) parsedStoredScopes.clear()
    scopes = Object.freeze(parseScopes(text).scopes)
    parsedStoredScopes.set(text, scopes)
  }
  return scopes
}

/** Whether `scopes` hold every default scope: the token response then says `scope: true` (§13). */
export function hasEveryScope(scopes: readonly Scope[]): boolean {
  return DEFAULT_SCOPES.every((scope) => scopes.includes(scope))
}
