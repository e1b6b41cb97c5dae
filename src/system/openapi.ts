import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'

/**
 * The OpenAPI 3.1 document is generated from the route schemas (the same ones that validate),
 * served at `/v2/openapi.json`, and browsable at `/docs`.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'expertdir API',
        version: '2',
        description:
          'Expert Directory Service, API v2. Every response is `{success, data}` or `{success: false, error}`.',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ bearer: [] }],
    },
  })
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true })
  app.get('/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
