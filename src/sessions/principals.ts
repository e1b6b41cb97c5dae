import type { PrincipalResolver } from '../auth/bearer.js'
import { isRole, roleScopes } from '../auth/roles.js'
import { hashToken } from '../auth/secrets.js'
import type { Principal } from '../auth/tokens.js'
import type { Database } from '../db/database.js'
import { findPersonToken, type Lifetimes, PERSON_TOKEN_PREFIX } from './repository.js'

/**
 * Resolves dashboard tokens (those that start with `p.`) to their person's principal and every other
 * token through `clients`. The scopes come from the person's role as it is now, so a role change or a
 * removal takes effect on the very next request; nothing is cached.
 */
export function withPersonTokens(
  clients: PrincipalResolver,
  context: { database: Database; now: () => number; lifetimes: Lifetimes },
): PrincipalResolver {
  return {
    resolve(token, target) {
      if (!token.startsWith(PERSON_TOKEN_PREFIX)) return clients.resolve(token, target)
      return personPrincipal(token)
    },
  }

  async function personPrincipal(token: string) {
    const tokenHash = hashToken(token)
    const row = await findPersonToken(context.database.db, tokenHash, context.now(), context.lifetimes)
    if (!row || !isRole(row.role)) return undefined
    const principal: Principal = {
      orgId: row.orgId,
      clientId: `person:${row.personId}`,
      tokenHash,
      expiresAt: row.expiresAt,
      scopes: roleScopes(row.role),
      person: {
        id: row.personId,
        role: row.role,
        ...(row.role === 'expert' ? { reach: { username: row.expertUsername } } : {}),
      },
    }
    return { principal }
  }
}
