import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

/**
 * Asserts an RFC 6749 §5.2 error body, as the OAuth endpoints answer: exactly `success: false`,
 * `error` (the code) and `error_description` (a sentence), with the status of CONTRACT §2.
 */
export function assertOAuthError(response: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(response.statusCode, status, response.body)
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  const body = response.json()
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description', 'success'], response.body)
  assert.equal(body.success, false)
  assert.equal(body.error, code)
  assert.equal(typeof body.error_description, 'string')
  assert.ok(body.error_description.length > 10, 'a sentence a person can act on')
}

/** A token of `client` for `scope` (the client's every scope when omitted); throws unless issued. */
export async function scopedToken(
  app: FastifyInstance,
  client: { client_id: string; client_secret: string },
  scope?: string,
): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/v2/oauth/token',
    payload: {
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: client.client_secret,
      ...(scope === undefined ? {} : { scope }),
    },
  })
  if (response.statusCode !== 200) throw new Error(`token request failed: ${response.body}`)
  return response.json().access_token
}
