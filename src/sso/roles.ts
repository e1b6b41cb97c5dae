import { ROLES, type Role } from '../auth/roles.js'

/**
 * The roles single sign-on may give. Never `owner`: an identity provider's group (which an admin
 * configures) must not make owners, so that an admin cannot promote anyone above itself through it.
 */
export const SSO_ROLES = ['admin', 'editor', 'inquiries', 'expert'] as const satisfies readonly Role[]

export type SsoRole = (typeof SSO_ROLES)[number]

export function isSsoRole(value: string): value is SsoRole {
  return SSO_ROLES.some((role) => role === value)
}

/** The highest of `roles` (ROLES lists the most powerful first); undefined for none. */
export function highestRole<R extends Role>(roles: readonly R[]): R | undefined {
  return [...roles].sort((a, b) => ROLES.indexOf(a) - ROLES.indexOf(b))[0]
}
