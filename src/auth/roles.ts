import type { Scope } from './scopes.js'

/** The roles of CONTRACT §14, most powerful first. */
export const ROLES = ['owner', 'admin', 'editor', 'inquiries', 'expert'] as const

export type Role = (typeof ROLES)[number]

export function isRole(value: string): value is Role {
  return ROLES.some((role) => role === value)
}

/**
 * What a signed-in person's bearer tokens hold, by role (CONTRACT §14). No role gets `inquiries:create`: inquiries come from the public through
 * an organization's website, not from its staff. An `expert` person's token also carries a reach
 * (its own expert only), enforced by the bearer check.
 */
const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: ['read', 'write', 'inquiries:read', 'inquiries:handle', 'admin'],
  admin: ['read', 'write', 'inquiries:read', 'inquiries:handle', 'admin'],
  editor: ['read', 'write'],
  inquiries: ['read', 'inquiries:read', 'inquiries:handle'],
  expert: ['read', 'write', 'inquiries:read'],
}

export function roleScopes(role: Role): Scope[] {
  return [...ROLE_SCOPES[role]]
}

/** The roles whose people may handle inquiries (`inquiries:handle`): who an inquiry may be assigned to. */
export const INQUIRY_HANDLER_ROLES: readonly Role[] = ROLES.filter((role) =>
  ROLE_SCOPES[role].includes('inquiries:handle'),
)
