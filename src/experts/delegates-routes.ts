import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { ExpertParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { UnixSeconds } from '../validation/fields.js'
import { Id } from '../validation/text.js'
import { grantDelegate, listDelegates, revokeDelegate } from './delegates.js'

const errors = { '4xx': ErrorEnvelope }
const tags = ['experts']

const DelegateParams = Type.Object({ ...ExpertParams.properties, person: Id('Person id') })

const Delegate = Type.Object(
  {
    person: Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      email: Type.String(),
      role: Type.String({ description: 'The person’s own role, which the grant does not change' }),
    }),
    until: Type.Integer({ description: 'Unix seconds: the grant ends then' }),
    granted_at: Type.Integer({ description: 'Unix seconds: when it was granted or last extended' }),
  },
  { title: 'Delegate' },
)

const DelegateGrant = Type.Object(
  {
    person: Id('The person of the organization who may edit the profile'),
    until: UnixSeconds('When the grant ends (in the future)', 0),
  },
  { additionalProperties: false, title: 'DelegateGrant' },
)

/**
 * A profile's delegates (CONTRACT §21): `GET|POST /v2/organization/:corporation/expert/:username/delegates`,
 * `DELETE .../delegates/:person`. Writes need scope `write`: the expert person on its own profile, an
 * editor or an admin (or a client with `write`); reading them, `read`. A delegate's grant does not
 * reach these routes, so a delegate cannot grant further.
 */
export async function expertDelegateRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const config = { scope: 'write', delegates: false } as const
  const readConfig = { scope: 'read', delegates: false } as const

  app.get(
    '/v2/organization/:corporation/expert/:username/delegates',
    {
      schema: {
        operationId: 'listDelegates',
        tags,
        summary: 'The people who may edit this profile for a while (live grants)',
        params: ExpertParams,
        response: { 200: Success(Type.Object({ delegates: Type.Array(Delegate) })), ...errors },
      },
      config: readConfig,
    },
    async (request) => {
      const { corporation, username } = request.params
      return ok({ delegates: await listDelegates(context.db, corporation, username, context.now()) })
    },
  )

  app.post(
    '/v2/organization/:corporation/expert/:username/delegates',
    {
      schema: {
        operationId: 'grantDelegate',
        tags,
        summary: 'Let a person of the organization edit this profile until a time (again: moves the end)',
        params: ExpertParams,
        body: DelegateGrant,
        response: {
          200: Success(
            Type.Object({ person: Type.Integer(), until: Type.Integer(), created: Type.Boolean() }),
          ),
          ...errors,
        },
      },
      config,
    },
    async (request) => {
      const { corporation, username } = request.params
      const { person, until } = request.body
      const { created } = await grantDelegate(writeContextOf(request, context, corporation), {
        username,
        personId: person,
        until,
      })
      return ok({ person, until, created })
    },
  )

  app.delete(
    '/v2/organization/:corporation/expert/:username/delegates/:person',
    {
      schema: {
        operationId: 'revokeDelegate',
        tags,
        summary: "End a person's grant on this profile at once",
        params: DelegateParams,
        response: {
          200: Success(Type.Object({ person: Type.Integer(), deleted: Type.Boolean() })),
          ...errors,
        },
      },
      config,
    },
    async (request) => {
      const { corporation, username, person } = request.params
      await revokeDelegate(writeContextOf(request, context, corporation), { username, personId: person })
      return ok({ person, deleted: true })
    },
  )
}
