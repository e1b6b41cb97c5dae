import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'

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
