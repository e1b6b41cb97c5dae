import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import { issueClient, listClients, withdrawClient } from '../auth/clients.js'
import { DEFAULT_SCOPES, parseScopes, SCOPES, type Scope } from '../auth/scopes.js'
import { notFound, validationError } from '../errors.js'
import { ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import type { TypedApp } from '../http/typed-routes.js'
import { toSeconds } from '../time.js'
import { adminErrors } from './context.js'
import { ClientCreate, ClientIssued, ClientList, ClientParams, ClientRevoked } from './schemas.js'

const PATH = '/v2/organization/:corporation/client'

/** A `scope` field: known scopes only, every unknown one named (400). */
function requestedScopes(scope: string | undefined): readonly Scope[] {
  if (scope === undefined) return DEFAULT_SCOPES
  const { scopes, unknown } = parseScopes(scope)
  if (unknown.length > 0) {
    throw validationError([
      {
        field: 'scope',
        message: `names unknown scopes (${unknown.join(', ')}); the scopes are: ${SCOPES.join(', ')}`,
      },
    ])
  }
  return scopes
}

/** `GET|POST .../client`, `DELETE .../client/:client_id`: what `expertdir client list|create|revoke` do. */
export function clientRoutes(app: TypedApp, context: AppContext): void {
  const { db } = context

  app.get(
    PATH,
    {
      schema: {
        operationId: 'listClients',
        tags: ['admin'],
        summary: "The organization's API clients, revoked ones included (never a secret)",
        params: CorporationParams,
        response: { 200: Success(ClientList), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request) => {
      const rows = await listClients(db, request.params.corporation)
      return ok({
        clients: rows.map((row) => ({
          client_id: row.client_id,
          label: row.label,
          scope: row.scope,
          created_at: toSeconds(row.created_at),
          revoked_at: toSeconds(row.revoked_at),
        })),
      })
    },
  )

  app.post(
    PATH,
    {
      schema: {
        operationId: 'createClient',
        tags: ['admin'],
        summary: 'Create client credentials; the secret is in this answer only',
        description:
          'scope limits what the client may do (CONTRACT §13); without it: read write inquiries:create inquiries:read. ' +
          'read:public, inquiries:handle and admin are given only by name.',
        params: CorporationParams,
        body: ClientCreate,
        response: { 200: Success(ClientIssued), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request, reply) => {
      const { label, scope } = request.body
      const issued = await issueClient(writeContextOf(request, context, request.params.corporation), {
        label: label?.trim() || null,
        scopes: requestedScopes(scope),
      })
      reply.header('cache-control', 'no-store')
      return ok({
        client_id: issued.client_id,
        client_secret: issued.client_secret,
        label: label?.trim() || null,
        scope: issued.scope,
      })
    },
  )

  app.delete(
    `${PATH}/:client_id`,
    {
      schema: {
        operationId: 'revokeClient',
        tags: ['admin'],
        summary: 'Revoke a client: it and every token it holds stop working at once',
        description: 'Revoking a revoked client changes nothing and answers when it was revoked.',
        params: ClientParams,
        response: { 200: Success(ClientRevoked), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request) => {
      const { corporation, client_id: clientId } = request.params
      const client = await withdrawClient(writeContextOf(request, context, corporation), clientId)
      if (!client || client.revoked_at === null) throw notFound(`Client ${clientId}`)
      return ok({
        client_id: clientId,
        revoked: true as const,
        revoked_at: toSeconds(Number(client.revoked_at)),
      })
    },
  )
}
