import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { LightMyRequestResponse } from 'fastify'
import { describeEachDialect } from './helpers/harness.js'
import { deref, type JsonNode } from './helpers/openapi.js'

const DOCUMENT_ID = 'https://expertdir.test/openapi.json'
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/**
 * The OAuth endpoints' refusals that come from outside OAuth (media type, size, rate limit) as well as
 * its own, each checked against the response the OpenAPI document declares for its status.
 */
describeEachDialect(
  'OAuth endpoints: every refusal matches the response its document declares',
  (ctx) => {
    let document: JsonNode
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats.default(ajv)

    before(async () => {
      document = (await ctx.inject({ method: 'GET', url: '/v2/openapi.json' })).json()
      ajv.addSchema({ ...document, $id: DOCUMENT_ID })
    })

    /** Asserts that `response` is what the document declares for its path, method and status. */
    function assertDeclared(path: string, response: LightMyRequestResponse) {
      const status = String(response.statusCode)
      const responses = document.paths[path].post.responses
      const declared = deref(document, responses[status] ?? responses[`${status[0]}XX`])
      assert.ok(declared, `${path} declares ${status}`)
      const schema = declared.content?.['application/json']?.schema
      assert.ok(schema?.$ref, `${path} ${status} has a JSON body schema`)
      const validate = ajv.compile({ $ref: `${DOCUMENT_ID}${schema.$ref}` })
      const body = response.json()
      assert.ok(
        validate(body),
        `${path} ${status}: ${JSON.stringify(body)} does not match: ${ajv.errorsText(validate.errors)}`,
      )
    }

    for (const name of ['token', 'revoke']) {
      const path = `/v2/oauth/${name}`
      const post = (headers: Record<string, string>, payload: string, remoteAddress = '192.0.2.1') =>
        ctx.inject({ method: 'POST', url: path, headers, payload, remoteAddress })

      test(`${name}: 415 for another media type`, async () => {
        const response = await post({ 'content-type': 'text/plain' }, 'grant_type=client_credentials')
        assert.equal(response.statusCode, 415)
        assertDeclared(path, response)
      })

      test(`${name}: 413 for a body over the limit`, async () => {
        const response = await post(FORM, `token=${'x'.repeat(2 * 1024 * 1024)}`)
        assert.equal(response.statusCode, 413)
        assertDeclared(path, response)
      })

      test(`${name}: 400 and 401 for a malformed request and an unknown client`, async () => {
        const malformed = await post(FORM, 'client_id=x')
        assert.equal(malformed.statusCode, 400)
        assertDeclared(path, malformed)
        const unknown = await post(
          FORM,
          new URLSearchParams({
            grant_type: 'client_credentials',
            token: 'abc',
            client_id: 'cl_nobody',
            client_secret: 'wrong',
          }).toString(),
        )
        assert.equal(unknown.statusCode, 401)
        assertDeclared(path, unknown)
      })

      test(`${name}: 429 past the rate limit`, async () => {
        const body = new URLSearchParams({
          grant_type: 'client_credentials',
          token: 'abc',
          client_id: ctx.tenant.client.client_id,
          client_secret: ctx.tenant.client.client_secret,
        }).toString()
        let response = await post(FORM, body, '192.0.2.99')
        for (let i = 0; i < 5 && response.statusCode !== 429; i++)
          response = await post(FORM, body, '192.0.2.99')
        assert.equal(response.statusCode, 429, response.body)
        assertDeclared(path, response)
      })
    }
  },
  { config: { rateLimitToken: 2 } },
)
