import type { Actor, AuditTrail } from './actor.js'

/** What the bearer check knows of a request: its route and who sent it (src/auth/tokens.ts `Principal`). */
export interface AuthenticatedRequest {
  method: string
  routeOptions: { url?: string | undefined }
  principal: {
    clientId: string
    person?: { id: number; role: string; onBehalfOf?: string | undefined } | undefined
  }
}

/** The trail of an API request: the person or the client behind its token, and its route. */
export function requestTrail(request: AuthenticatedRequest): AuditTrail {
  const { person, clientId } = request.principal
  const actor: Actor = person
    ? { kind: 'person', id: person.id, role: person.role, onBehalfOf: person.onBehalfOf }
    : { kind: 'client', id: clientId }
  return { actor, action: `${request.method} ${request.routeOptions.url ?? ''}` }
}
