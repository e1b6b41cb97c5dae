import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { before, describe, test } from 'node:test'
import { parseQuery } from '../src/http/url-encoding.js'
import { parseQueryString } from '../src/search/query-string.js'
import { plainText } from '../src/validation/html-text.js'
import { characterClass, controlsExcept, LINE_CONTROLS } from '../src/validation/patterns.js'
import { createExpert, describeEachDialect, envelope, type TestContext } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const JSON_TYPE = { 'content-type': 'application/json' }
/** Every control character the contract refuses, as a regular expression. */
const CONTROL = new RegExp(characterClass(controlsExcept(LINE_CONTROLS)))

/** Sends raw bytes over a real socket and returns the status and body of the answer. */
function rawRequest(port: number, head: string, body: Buffer = Buffer.alloc(0)) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1])
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) })
    })
    const headers = `${head}\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`
    socket.write(Buffer.concat([Buffer.from(headers, 'latin1'), body]))
  })
}

describeEachDialect('input hygiene', (ctx: TestContext) => {
  let username = ''
  let base = ''
  let port = 0
  before(async () => {
    username = await createExpert(ctx, ctx.tenant)
    base = `/v2/organization/${ctx.tenant.orgId}/expert/${username}`
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    port = listeningPort(ctx.app.server)
  })

  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers = {}) =>
    ctx.inject({
      method,
      url,
      headers: { ...ctx.tenant.auth, ...headers },
      ...(payload === undefined ? {} : { payload: payload as string }),
    })

  describe('numeric character references that decode to control characters are not stored', () => {
    test('in a biography', async () => {
      const written = await send('POST', `${base}/biography`, {
        biography: '<p title="a&#1;b">one&#1;two&#x85;three&#0;&#x9b;<em>&#127;four</em></p>',
      })
      assert.equal(written.statusCode, 200, written.body)
      const read = await send('GET', `${base}/biography`)
      const biography = String(read.json().data.biography[0].biography)
      assert.doesNotMatch(biography, CONTROL)
      // &#x85; and &#x9b; are windows-1252 references (… and ›) in HTML; &#0; is U+FFFD.
      assert.equal(biography, '<p>onetwo\u2026three\ufffd\u203a<em>four</em></p>')
    })

    test('in a post, its SEO fallback description and its search summary', async () => {
      const created = await send('POST', `/v2/spotlight/${ctx.tenant.orgId}`, {
        title: 'Controls',
        html: '<p>Heat&#1;waves &#x85;and&#27; rain&#155;fall</p>',
        published: 1,
      })
      assert.equal(created.statusCode, 200, created.body)
      const id = created.json().data.id
      const read = (await send('GET', `/v2/spotlight/${ctx.tenant.orgId}/${id}`)).json().data
      assert.doesNotMatch(read.spotlight[0].html, CONTROL)
      assert.doesNotMatch(read.seo[0].description, CONTROL)
      const search = (await send('GET', `/v2/spotlight/${ctx.tenant.orgId}/search?q=heat`)).json().data
      for (const item of search.spotlights) assert.doesNotMatch(item.summary, CONTROL)
    })

    test('the plain text behind the SEO fallback never holds a control character', () => {
      assert.equal(plainText('a&#1;b&#x85;c&#xD800;d\u0001e'), 'a b c d e')
      assert.equal(plainText('caf&#233; &#x1F600;'), 'café 😀')
    })
  })

  test('C1 controls are refused like C0 controls, in single-line and multi-line fields', async () => {
    for (const [field, value] of [
      ['job_title', 'Chief\u0085Scientist'],
      ['company', 'Acme\u009b31m'],
      ['department', 'R\u0080D'],
    ] as const) {
      const response = await send('PUT', base, { [field]: value })
      assert.equal(response.statusCode, 400, `${field}: ${response.body}`)
      assert.equal(envelope(response).error?.details?.[0]?.field, field)
    }
    const multiLine = await send('POST', `${base}/sampletalk`, { title: 'Talk', description: 'a\u0085b' })
    assert.equal(multiLine.statusCode, 400)
    assert.equal(envelope(multiLine).error?.details?.[0]?.field, 'description')
    const lineBreaks = await send('POST', `${base}/sampletalk`, { title: 'Talk', description: 'a\nb\tc' })
    assert.equal(lineBreaks.statusCode, 200)
    const stored = (await send('GET', `/v2/organization/${ctx.tenant.orgId}/expert/${username}`)).json().data
    assert.equal(stored.account[0].job_title, 'Rear Admiral')
  })

  describe('invalid UTF-8 and bad percent escapes are 400 in the envelope, never U+FFFD', () => {
    const badUtf8 = (prefix: string, suffix: string) =>
      Buffer.concat([Buffer.from(prefix), Buffer.from([0xc3, 0x28]), Buffer.from(suffix)])

    test('a JSON body with invalid UTF-8 (injected as bytes)', async () => {
      const response = await send('PUT', base, badUtf8('{"job_title":"a', '"}'), JSON_TYPE)
      assert.equal(response.statusCode, 400)
      assert.equal(envelope(response).error?.code, 'validation_failed')
      assert.deepEqual(envelope(response).error?.details, [{ field: 'body', message: 'must be UTF-8 text' }])
    })

    test('form bodies: raw invalid UTF-8 over a real socket, and escapes that are malformed or not UTF-8', async () => {
      const raw = await rawRequest(
        port,
        `PUT ${base} HTTP/1.1\r\nAuthorization: ${ctx.tenant.auth.authorization}\r\nContent-Type: application/x-www-form-urlencoded`,
        badUtf8('job_title=a', 'b'),
      )
      assert.equal(raw.status, 400, raw.body)
      assert.equal(JSON.parse(raw.body).error.code, 'validation_failed')
      for (const body of [
        'job_title=a%ZZb',
        'job_title=a%',
        'job_title=a%FFb',
        'job_title=%C3%28',
        'job_title=%ED%A0%80',
      ]) {
        const response = await send('PUT', base, body, FORM)
        assert.equal(response.statusCode, 400, body)
        assert.equal(envelope(response).error?.details?.[0]?.field, 'body', body)
      }
      const stored = (await send('GET', base)).json().data
      assert.equal(stored.account[0].job_title, 'Rear Admiral')
    })

    test('query strings: search and the inbox, over a real socket', async () => {
      for (const url of [
        `/v2/organization/${ctx.tenant.orgId}/expert?q=a%FF`,
        `/v2/organization/${ctx.tenant.orgId}/expert?q=%ZZ`,
        `/v2/spotlight/${ctx.tenant.orgId}/search?q=%C3%28`,
        `/v2/organization/${ctx.tenant.orgId}/inquiry?username=a%FF`,
        `/v2/organization/${ctx.tenant.orgId}/inquiry?kind=donor%`,
      ]) {
        const response = await rawRequest(
          port,
          `GET ${url} HTTP/1.1\r\nAuthorization: ${ctx.tenant.auth.authorization}`,
        )
        assert.equal(response.status, 400, `${url}: ${response.body}`)
        const body = JSON.parse(response.body)
        assert.equal(body.error.code, 'validation_failed', url)
        assert.equal(body.error.details[0].field, 'query', url)
      }
    })

    test('path segments', async () => {
      for (const segment of ['a%FFb', 'a%ZZb', '%C3%28']) {
        const response = await send('GET', `/v2/organization/${ctx.tenant.orgId}/expert/${segment}`)
        assert.equal(response.statusCode, 400, segment)
        assert.equal(envelope(response).error?.code, 'validation_failed')
      }
    })

    test('well-formed escapes still decode', async () => {
      const response = await send('PUT', base, 'department=R%26D%20%C3%A9quipe+one', FORM)
      assert.equal(response.statusCode, 200, response.body)
      const stored = (await send('GET', base)).json().data
      assert.equal(stored.account[0].department, 'R&D équipe one')
    })
  })

  describe('__proto__, constructor and prototype are unknown parameters', () => {
    test('in search and inbox query strings', async () => {
      for (const url of [
        `/v2/organization/${ctx.tenant.orgId}/expert?__proto__=x`,
        `/v2/organization/${ctx.tenant.orgId}/expert?__proto__=x&__proto__=y`,
        `/v2/spotlight/${ctx.tenant.orgId}/search?prototype=x`,
        `/v2/qanda/${ctx.tenant.orgId}/search?constructor=x`,
        `/v2/organization/${ctx.tenant.orgId}/inquiry?__proto__=x`,
      ]) {
        const response = await send('GET', url)
        assert.equal(response.statusCode, 400, `${url}: ${response.body}`)
        const name = /\?([a-z_]+)=/.exec(url)?.[1]
        assert.deepEqual(envelope(response).error?.details, [
          { field: name, message: 'is not a known field' },
        ])
      }
    })

    test("parsing never touches the parsed object's prototype", () => {
      const search = parseQueryString('/x?__proto__=a&__proto__=b&topics=t', new Set(['topics']))
      assert.equal(Object.getPrototypeOf(search.query), null)
      assert.deepEqual(Object.getOwnPropertyDescriptor(search.query, '__proto__')?.value, ['a', 'b'])
      const query = parseQuery('__proto__=a&constructor=b')
      assert.equal(Object.getPrototypeOf(query), null)
      assert.equal(Object.getOwnPropertyDescriptor(query, '__proto__')?.value, 'a')
      assert.equal(Reflect.get({}, 'a'), undefined)
    })
  })

  test('the inquiry website follows the rule of every other URL field', async () => {
    const url = `/v2/organization/${ctx.tenant.orgId}/inquiry/general`
    const body = { firstname: 'Ann', email: 'ann@example.org', message: 'Hello', username }
    for (const website of [
      'https://example.org/"onmouseover="alert(1)',
      'https://example.org/<script>',
      'https://example.org/a>b',
      'HTTPS://example.org',
      'Http://example.org',
    ]) {
      const response = await send('POST', url, { ...body, website })
      assert.equal(response.statusCode, 400, website)
      assert.equal(envelope(response).error?.details?.[0]?.field, 'website')
      const section = await send('POST', `${base}/link`, { name: 'Site', url: website })
      assert.equal(section.statusCode, 400, `link ${website}`)
    }
    assert.equal((await send('POST', url, { ...body, website: 'https://example.org/a?b=c' })).statusCode, 200)
    assert.equal((await send('POST', url, { ...body, website: '' })).statusCode, 200)
  })

  test('form bodies carry fractional numbers where JSON does', async () => {
    const form = await send('POST', `${base}/fee`, 'fee_min=2.5&fee_max=1000.75&currency=usd', FORM)
    assert.equal(form.statusCode, 200, form.body)
    const fee = (await send('GET', `${base}/fee`)).json().data.fee[0]
    assert.equal(fee.fee_min, 2.5)
    assert.equal(fee.fee_max, 1000.75)
    for (const bad of ['2.', '.5', '2.5e3', '02.5', '2,5']) {
      const response = await send('POST', `${base}/fee`, `fee_min=${bad}&currency=USD`, FORM)
      assert.equal(response.statusCode, 400, bad)
    }
    // An integer field still takes integers only.
    const flag = await send('PUT', base, 'is_published=1.0', FORM)
    assert.equal(flag.statusCode, 400)
  })

  test('an empty client_id beside HTTP Basic is treated as omitted (RFC 6749 §3.1)', async () => {
    const { client_id, client_secret } = ctx.tenant.client
    const authorization = `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}`
    for (const payload of [
      'grant_type=client_credentials&client_id=',
      'grant_type=client_credentials&client_id=&client_secret=',
    ]) {
      const response = await ctx.inject({
        method: 'POST',
        url: '/v2/oauth/token',
        headers: { ...FORM, authorization },
        payload,
      })
      assert.equal(response.statusCode, 200, `${payload}: ${response.body}`)
    }
    const both = await ctx.inject({
      method: 'POST',
      url: '/v2/oauth/token',
      headers: { ...FORM, authorization },
      payload: `grant_type=client_credentials&client_id=${client_id}`,
    })
    assert.equal(both.statusCode, 400)
    assert.equal(both.json().error, 'invalid_request')
  })

  test("Allow never lists a hidden catch-all route's methods", async () => {
    const url = `/v2/organization/${ctx.tenant.orgId}/inquiry/1`
    for (const method of ['DELETE', 'PUT'] as const) {
      const response = await ctx.inject({ method, url, headers: ctx.tenant.auth })
      assert.equal(response.statusCode, 405)
      assert.equal(response.headers.allow, 'GET, HEAD, PATCH')
      assert.equal(envelope(response).error?.message, `${method} is not allowed here; use GET, HEAD, PATCH.`)
    }
    // The catch-all still answers an unknown inquiry kind with 404.
    const post = await ctx.inject({ method: 'POST', url, headers: ctx.tenant.auth, payload: {} })
    assert.equal(post.statusCode, 404)
  })
})
