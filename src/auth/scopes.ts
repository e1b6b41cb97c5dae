/**
 * The access scopes of CONTRACT §13. A client holds some of them (chosen at `client create`), a token
 * holds a subset of its client's, and every protected route declares the one it needs in its options:
 * `config: { scope: 'read' }`.
 */
export const SCOPES = ['read', 'write', 'inquiries:create', 'inquiries:read'] as const

export type Scope = (typeof SCOPES)[number]

/** What each scope allows, as the OpenAPI document and the token endpoint's metadata describe it. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  read: 'Read profiles, posts and Q&A items (every GET under /v2)',
  write: 'Create, change and delete experts, profile sections, posts, Q&A items and the organization profile',
  'inquiries:create': 'Send inquiries to experts',
  'inquiries:read': "Read the organization's inquiry inbox",
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a token needs for this route (required on every route behind the bearer check). */
    scope?: Scope
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

/** Scopes as stored in a `scope` column; anything unknown there is dropped rather than trusted. */
export function storedScopes(text: string): Scope[] {
  return parseScopes(text).scopes
}

export function hasEveryScope(scopes: readonly Scope[]): boolean {
  return SCOPES.every((scope) => scopes.includes(scope))
}
