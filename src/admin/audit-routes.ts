import type { AppContext } from '../app-context.js'
import type { ActorKind } from '../audit/actor.js'
import { readAuditLog } from '../audit/log.js'
import { validationError } from '../errors.js'
import { ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import type { TypedApp } from '../http/typed-routes.js'
import { adminErrors } from './context.js'
import { AuditLog, AuditQuery, DEFAULT_PAGE_SIZE } from './schemas.js'

/** `person:12` -> the person 12; `client:cl_x` -> that client; `cli`, `system`, `schedule` -> every entry of theirs. */
function actorFilter(actor: string | undefined): { actor_kind?: ActorKind; actor_id?: string } {
  if (actor === undefined) return {}
  if (actor === 'cli' || actor === 'system' || actor === 'schedule') return { actor_kind: actor }
  const [kind, ...rest] = actor.split(':')
  return { actor_kind: kind === 'person' ? 'person' : 'client', actor_id: rest.join(':') }
}

/** `GET .../audit`: who wrote what and when, newest first, a page at a time (CONTRACT §14, §11). */
export function auditRoutes(app: TypedApp, context: AppContext): void {
  app.get(
    '/v2/organization/:corporation/audit',
    {
      schema: {
        operationId: 'readAuditLog',
        tags: ['admin'],
        summary:
          "The organization's audit log: every write through the API, the dashboard, import and the CLI",
        description:
          "Newest first, each entry with its actor's name and a sentence saying what was done. " +
          "Filters: actor (person:<id>, client:<client_id>, cli, system, schedule), kind (the record kind) and, with kind, record (one record's history). " +
          'Pass next_cursor as cursor for the next page.',
        params: CorporationParams,
        querystring: AuditQuery,
        response: { 200: Success(AuditLog), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request) => {
      const { actor, kind, record, page_size, cursor } = request.query
      if (record !== undefined && kind === undefined)
        throw validationError([{ field: 'record', message: 'needs kind: the kind of the record it names' }])
      return ok(
        await readAuditLog(context.db, request.params.corporation, {
          ...actorFilter(actor),
          kind,
          record,
          page_size: page_size ?? DEFAULT_PAGE_SIZE,
          cursor,
        }),
      )
    },
  )
}
