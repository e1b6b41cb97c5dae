import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { after, before, test } from 'node:test'
import { Type } from 'typebox'
import { parsed } from './helpers/checked.js'
import { describeEachDialect, envelope, expertBody } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { deref } from './helpers/openapi.js'

describeEachDialect('HTTP conventions', (ctx) => {
  const expertsUrl = () => `/v2/organization/${ctx.tenant.orgId}/expert`

  test('malformed JSON is 400 invalid_json', async () => {
    const response = await ctx.inject({
      method: 'POST',
      url: expertsUrl(),
      headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
      payload: '{"firstname": ',
    })
    assert.equal(response.statusCode, 400)
    assert.equal(envelope(response).error?.code, 'invalid_json')
  })

  test('a JSON body that is not an object is 400 validation_failed', async () => {
    for (const payload of ['[1,2]', '"text"', '42', 'null']) {
      const response = await ctx.inject({
        method: 'POST',
        url: expertsUrl(),
        headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
        payload,
      })
      assert.equal(response.statusCode, 400, payload)
      assert.equal(envelope(response).error?.code, 'validation_failed')
    }
  })

  test('__proto__ and constructor keys are rejected and no prototype is touched', async () => {
    for (const payload of [
      `{"__proto__": {"polluted": true}, "firstname": "x"}`,
      `{"constructor": {"prototype": {"polluted": true}}}`,
    ]) {
      const response = await ctx.inject({
        method: 'POST',
        url: expertsUrl(),
        headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
        payload,
      })
      assert.equal(response.statusCode, 400, payload)
      assert.equal(envelope(response).error?.code, 'validation_failed')
    }
    const form = await ctx.inject({
      method: 'POST',
      url: expertsUrl(),
      headers: { ...ctx.tenant.auth, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '__proto__[polluted]=1&__proto__=x',
    })
    assert.equal(form.statusCode, 400)
    assert.equal(Reflect.get({}, 'polluted'), undefined)
  })

  test('any other content type is 415', async () => {
    for (const type of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
      const response = await ctx.inject({
        method: 'POST',
        url: expertsUrl(),
        headers: { ...ctx.tenant.auth, 'content-type': type },
        payload: 'firstname=x',
      })
      assert.equal(response.statusCode, 415, type)
      assert.equal(envelope(response).error?.code, 'unsupported_media_type')
    }
  })

  test('a body over 1 MiB is 413', async () => {
    const response = await ctx.inject({
      method: 'POST',
      url: expertsUrl(),
      headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
      payload: JSON.stringify(expertBody({ firstname: 'x'.repeat(1024 * 1024) })),
    })
    assert.equal(response.statusCode, 413)
    assert.equal(envelope(response).error?.code, 'payload_too_large')
  })

  test('echoes a safe X-Request-Id and makes one otherwise', async () => {
    const echoed = await ctx.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'abc-123' },
    })
    assert.equal(echoed.headers['x-request-id'], 'abc-123')
    const unsafe = await ctx.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'a b\u0001c' },
    })
    assert.match(String(unsafe.headers['x-request-id']), /^[0-9a-f-]{36}$/)
    const error = await ctx.inject({ method: 'GET', url: '/nowhere' })
    assert.ok(error.headers['x-request-id'])
  })

  test('JSON responses are application/json; charset=utf-8 with nosniff', async () => {
    for (const url of ['/healthz', '/nowhere']) {
      const response = await ctx.inject({ method: 'GET', url })
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(response.headers['x-content-type-options'], 'nosniff')
    }
  })

  test('an unknown route is 404 not_found in the envelope', async () => {
    const response = await ctx.inject({ method: 'GET', url: '/v2/nothing/here' })
    assert.equal(response.statusCode, 404)
    assert.deepEqual(Object.keys(envelope(response)), ['success', 'error'])
    assert.equal(envelope(response).error?.code, 'not_found')
  })

  test('a known path with another method is 405 with Allow', async () => {
    const response = await ctx.inject({
      method: 'PATCH',
      url: `${expertsUrl()}/someone`,
      headers: ctx.tenant.auth,
    })
    assert.equal(response.statusCode, 405)
    assert.equal(envelope(response).error?.code, 'method_not_allowed')
    assert.equal(response.headers.allow, 'DELETE, GET, HEAD, PUT')
    const token = await ctx.inject({ method: 'GET', url: '/v2/oauth/token' })
    assert.equal(token.statusCode, 405)
    assert.equal(token.headers.allow, 'POST')
  })

  test('a 405 needs no token, and a static path lacking the method wins over a parameter that has it', async () => {
    const org = ctx.tenant.orgId
    const cases: [string, string, string][] = [
      // Answered by the not-found handler: no route of PATCH has this path.
      ['PATCH', `${expertsUrl()}/someone`, 'DELETE, GET, HEAD, PUT'],
      // `/search` lacks PUT, `/:id` has it; `/order` lacks DELETE, `/:id` has it; the inquiry kinds
      // lack GET, `/inquiry/:id` has it; the directory's theme lacks PUT, a page's 405 route has it.
      ['PUT', `/v2/qanda/${org}/search`, 'GET, HEAD'],
      ['DELETE', `${expertsUrl()}/someone/video/order`, 'PUT'],
      ['GET', `/v2/organization/${org}/inquiry/general`, 'POST'],
      ['PUT', `/directory/${org}/theme.css`, 'GET, HEAD'],
    ]
    for (const [method, url, allow] of cases) {
      const response = await ctx.inject({ method, url })
      assert.equal(response.statusCode, 405, `${method} ${url}: ${response.body}`)
      assert.equal(envelope(response).error?.code, 'method_not_allowed')
      assert.equal(response.headers.allow, allow, `${method} ${url}`)
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    }
    const long = await ctx.inject({ method: 'PATCH', url: `${expertsUrl()}/${'a'.repeat(101)}` })
    assert.equal(long.statusCode, 400)
    assert.equal(envelope(long).error?.message, 'A path segment is too long.')
  })

  test('the router holds a 405 route only where one must win over another route (about 5,700 before)', () => {
    // The not-found handlers answer the other 405s from one matcher entry per path.
    const fallbacks = ctx.routes.filter(({ config }) => config.methodFallback)
    const own = ctx.routes.filter(({ config }) => !config.methodFallback)
    assert.ok(fallbacks.length > 0, 'the harness collected the 405 routes')
    assert.ok(fallbacks.length < own.length, `${fallbacks.length} 405 routes for ${own.length} routes`)
    assert.ok(
      !fallbacks.some(({ route }) => route === 'PATCH /v2/organization/:corporation/expert/:username'),
    )
  })

  test('healthz and readyz answer without a token', async () => {
    const health = await ctx.inject({ method: 'GET', url: '/healthz' })
    assert.deepEqual(envelope(health), { success: true, data: { status: 'ok' } })
    const ready = await ctx.inject({ method: 'GET', url: '/readyz' })
    assert.deepEqual(envelope(ready), { success: true, data: { status: 'ready' } })
  })

  test('serves the OpenAPI 3.1 document generated from the validating schemas, and the docs page', async () => {
    const response = await ctx.inject({ method: 'GET', url: '/v2/openapi.json' })
    assert.equal(response.statusCode, 200)
    const document = response.json()
    assert.equal(document.openapi, '3.1.0')
    const create = document.paths['/v2/organization/{corporation}/expert'].post
    const schema = deref(document, create.requestBody.content['application/json'].schema)
    assert.deepEqual([...schema.required].sort(), ['company', 'email', 'firstname', 'job_title', 'lastname'])
    assert.equal(schema.properties.firstname.maxLength, 255)
    assert.ok(document.paths['/v2/oauth/token'].post)
    const docs = await ctx.inject({ method: 'GET', url: '/docs/' })
    assert.equal(docs.statusCode, 200)
    assert.match(docs.body, /swagger/i)
  })
})

describeEachDialect('HTTP conventions over a real socket', (ctx) => {
  let port = 0
  before(async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    port = listeningPort(ctx.app.server)
  })
  after(() => ctx.app.close())

  test('an announced body over 1 MiB is refused with 413 before it is read', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/v2/organization/${ctx.tenant.orgId}/expert`,
        headers: {
          ...ctx.tenant.auth,
          'content-type': 'application/json',
          'content-length': String(50 * 1024 * 1024),
        },
      })
      request.on('response', (response) => {
        let text = ''
        response.on('data', (chunk) => {
          text += chunk
        })
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }))
      })
      request.on('error', reject)
      // Only a small part of the announced 50 MiB is ever sent.
      request.write('{"firstname":"')
    })
    assert.equal(status, 413)
    assert.equal(JSON.parse(body).error.code, 'payload_too_large')
  })

  test('a form body over HTTP creates an expert', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/v2/organization/${ctx.tenant.orgId}/expert`, {
      method: 'POST',
      headers: { ...ctx.tenant.auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(expertBody() as Record<string, string>),
    })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
    assert.equal(
      parsed(Type.Object({ data: Type.Object({ inserted: Type.Boolean() }) }), await response.json()).data
        .inserted,
      true,
    )
  })
})

describeEachDialect('conditional reads', (ctx) => {
  test('a read carries an ETag; If-None-Match with it is a 304 until the expert changes', async () => {
    const create = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${ctx.tenant.orgId}/expert`,
      headers: ctx.tenant.auth,
      payload: expertBody({ firstname: 'Etag', lastname: 'Check' }),
    })
    const url = `/v2/organization/${ctx.tenant.orgId}/expert/${envelope(create).data?.username}`
    const first = await ctx.inject({ method: 'GET', url, headers: ctx.tenant.auth })
    const etag = String(first.headers.etag)
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/)
    assert.equal(first.headers['cache-control'], 'private, no-cache')
    const same = await ctx.inject({
      method: 'GET',
      url,
      headers: { ...ctx.tenant.auth, 'if-none-match': etag },
    })
    assert.equal(same.statusCode, 304)
    assert.equal(same.body, '')
    await ctx.inject({ method: 'PUT', url, headers: ctx.tenant.auth, payload: { job_title: 'Changed' } })
    const changed = await ctx.inject({
      method: 'GET',
      url,
      headers: { ...ctx.tenant.auth, 'if-none-match': etag },
    })
    assert.equal(changed.statusCode, 200)
    assert.notEqual(changed.headers.etag, etag)
  })

  test('errors and writes get no ETag and never a 304', async () => {
    const missing = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/nobody`,
      headers: { ...ctx.tenant.auth, 'if-none-match': '*' },
    })
    assert.equal(missing.statusCode, 404)
    assert.equal(missing.headers.etag, undefined)
  })
})
