import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { Type } from 'typebox'
import {
  BODY_ROUTES,
  type BodyRoute,
  ID_PATHS,
  UPLOAD_ROUTES,
  type UploadRoute,
} from './helpers/body-routes.js'
import { parsed } from './helpers/checked.js'
import { describeEachDialect, expertBody, type TestContext } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'

/**
 * Hostile and malformed requests over a real HTTP server. Every case must end in a 4xx in the envelope,
 * never a 5xx, and must write nothing.
 */

const Created = Type.Object({ username: Type.String() })

interface Sent {
  status: number
  body: Record<string, unknown>
  headers: Headers
}

interface AbuseCase {
  name: string
  contentType?: string
  body: string | Buffer
  status: number
  code: string
}

const FORM = 'multipart/form-data; boundary=xyz'
const part = (body: string) =>
  `--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n${body}`

/** Hostile bodies for the upload routes (multipart or a raw file). */
const UPLOAD_CASES: AbuseCase[] = [
  {
    name: 'multipart without a boundary',
    contentType: 'multipart/form-data',
    body: 'x',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'multipart with a boundary that never comes',
    contentType: FORM,
    body: 'no parts here at all',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'multipart cut in the middle of the file',
    contentType: FORM,
    body: part('\xff\xd8\xff\xe0 half a jp'),
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'multipart with only a text field',
    contentType: FORM,
    body: '--xyz\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--xyz--\r\n',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'multipart file over the size limit',
    contentType: FORM,
    body: Buffer.concat([
      Buffer.from(part('')),
      Buffer.alloc(4 * 1024 * 1024 + 10),
      Buffer.from('\r\n--xyz--\r\n'),
    ]),
    status: 413,
    code: 'payload_too_large',
  },
  {
    name: 'raw image over the size limit',
    contentType: 'image/jpeg',
    body: Buffer.alloc(4 * 1024 * 1024 + 10),
    status: 413,
    code: 'payload_too_large',
  },
  {
    name: 'raw image of zero bytes',
    contentType: 'image/png',
    body: '',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'a JSON body',
    contentType: 'application/json',
    body: '{"file": "x"}',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'a text body',
    contentType: 'text/plain',
    body: 'hello',
    status: 415,
    code: 'unsupported_media_type',
  },
]

const deep = (depth: number) => `{"firstname": ${'['.repeat(depth)}${']'.repeat(depth)}}`

const BODY_CASES: AbuseCase[] = [
  {
    name: 'malformed JSON',
    contentType: 'application/json',
    body: '{"a": 1,,}',
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'truncated JSON',
    contentType: 'application/json',
    body: '{"firstname": "Gr',
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'JSON array',
    contentType: 'application/json',
    body: '[{"firstname": "x"}]',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'JSON string',
    contentType: 'application/json',
    body: '"hello"',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'JSON number',
    contentType: 'application/json',
    body: '12',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'JSON null',
    contentType: 'application/json',
    body: 'null',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'deeply nested JSON (100k levels)',
    contentType: 'application/json',
    body: deep(100_000),
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'nested JSON (100 levels)',
    contentType: 'application/json',
    body: deep(100),
    status: 400,
    code: 'validation_failed',
  },
  {
    name: '__proto__ key',
    contentType: 'application/json',
    body: '{"__proto__": {"isAdmin": true}}',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'constructor.prototype key',
    contentType: 'application/json',
    body: '{"constructor": {"prototype": {"isAdmin": true}}}',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: '__proto__ form key',
    contentType: 'application/x-www-form-urlencoded',
    body: '__proto__=1',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'repeated form key',
    contentType: 'application/x-www-form-urlencoded',
    body: 'firstname=a&firstname=b',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'invalid UTF-8 bytes',
    contentType: 'application/json',
    body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'text/plain body',
    contentType: 'text/plain',
    body: 'firstname=x',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'XML body',
    contentType: 'application/xml',
    body: '<expert/>',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'multipart body',
    contentType: 'multipart/form-data; boundary=x',
    body: '--x--',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'body without a content type',
    body: '{"firstname": "x"}',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'body over 1 MiB',
    contentType: 'application/json',
    body: `{"firstname": "${'x'.repeat(1024 * 1024)}"}`,
    status: 413,
    code: 'payload_too_large',
  },
]

const STRING_CASES: { name: string; value: string }[] = [
  { name: 'NUL', value: 'Gr\u0000ace' },
  { name: 'escape character', value: 'Gr\u001bace' },
  { name: 'DEL', value: 'Gr\u007face' },
  { name: 'line break in a one-line field', value: 'Gr\nace' },
  { name: 'lone high surrogate', value: 'Gr\ud800ace' },
  { name: 'lone low surrogate', value: 'Gr\udc00ace' },
]

const BAD_IDS = [
  '0',
  '01',
  '-1',
  '+1',
  '1.5',
  '0x10',
  '1e3',
  '99999999999999999999',
  '9007199254740992',
  '%201',
  'abc',
]

async function send(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Sent> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: options.headers,
    body: options.body,
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : {}, headers: response.headers }
}

/** The error code of a failure: in the §2 envelope, or (`oauth`) in the RFC 6749 §5.2 body. */
function assertRejected(sent: Sent, status: number, code: string, label: string, oauth = false) {
  assert.equal(sent.status, status, `${label}: ${JSON.stringify(sent.body)}`)
  assert.equal(sent.body.success, false, label)
  if (oauth) {
    assert.equal(sent.body.error, code, label)
    assert.equal(typeof sent.body.error_description, 'string', label)
  } else {
    assert.equal(parsed(Type.Object({ code: Type.String() }), sent.body.error).code, code, label)
  }
  assert.equal(sent.headers.get('content-type'), 'application/json; charset=utf-8', label)
}

async function rowCount(ctx: TestContext, table: BodyRoute['table'] | 'media_files'): Promise<number> {
  const { db } = ctx.testDatabase.database
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

let fiveHundreds = 0

describeEachDialect(
  'abuse suite over real HTTP',
  (ctx) => {
    let port = 0
    /** One record per route: every case is refused and writes nothing, so a route's cases share it. */
    const targets = new Map<BodyRoute | UploadRoute, Promise<string>>()
    const target = (route: BodyRoute | UploadRoute) => {
      let url = targets.get(route)
      if (!url) {
        url = route.url(ctx)
        targets.set(route, url)
      }
      return url
    }
    before(async () => {
      await ctx.app.listen({ host: '127.0.0.1', port: 0 })
      port = listeningPort(ctx.app.server)
    })

    for (const route of BODY_ROUTES) {
      for (const abuse of BODY_CASES) {
        test(`${route.name}: ${abuse.name} is ${abuse.status} ${abuse.code} and writes nothing`, async () => {
          const url = await target(route)
          const before = await rowCount(ctx, route.table)
          const headers: Record<string, string> = route.auth ? { ...ctx.tenant.auth } : {}
          if (route.dashboard) headers.origin = `http://127.0.0.1:${port}`
          if (abuse.contentType) headers['content-type'] = abuse.contentType
          const sent = await send(port, route.method, url, { headers, body: abuse.body })
          if (sent.status >= 500) fiveHundreds++
          const code = abuse.status === 400 ? route.malformed : abuse.code
          // The sign-in routes take JSON only: a form body is refused before it is read.
          const formOnJsonOnly = route.dashboard && abuse.contentType === 'application/x-www-form-urlencoded'
          assertRejected(
            sent,
            formOnJsonOnly ? 415 : abuse.status,
            formOnJsonOnly
              ? 'unsupported_media_type'
              : route.malformed === 'invalid_request'
                ? code
                : abuse.code,
            abuse.name,
            route.malformed === 'invalid_request',
          )
          assert.equal(await rowCount(ctx, route.table), before)
          assert.equal(Reflect.get({}, 'isAdmin'), undefined, 'Object.prototype untouched')
        })
      }
    }

    for (const route of UPLOAD_ROUTES) {
      for (const abuse of UPLOAD_CASES) {
        test(`${route.name}: ${abuse.name} is ${abuse.status} ${abuse.code} and stores nothing`, async () => {
          const url = await target(route)
          const before = await rowCount(ctx, 'media_files')
          const headers: Record<string, string> = { ...ctx.tenant.auth }
          if (abuse.contentType) headers['content-type'] = abuse.contentType
          const sent = await send(port, route.method, url, { headers, body: abuse.body })
          if (sent.status >= 500) fiveHundreds++
          assertRejected(sent, abuse.status, abuse.code, abuse.name)
          assert.equal(await rowCount(ctx, 'media_files'), before)
        })
      }
    }

    for (const bad of STRING_CASES) {
      test(`a ${bad.name} in a string is 400 and writes nothing`, async () => {
        const before = await rowCount(ctx, 'experts')
        const sent = await send(port, 'POST', `/v2/organization/${ctx.tenant.orgId}/expert`, {
          headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
          body: JSON.stringify(expertBody({ firstname: bad.value })),
        })
        if (sent.status >= 500) fiveHundreds++
        assertRejected(sent, 400, 'validation_failed', bad.name)
        assert.equal(await rowCount(ctx, 'experts'), before)
      })
    }

    for (const path of ID_PATHS) {
      for (const id of BAD_IDS) {
        test(`${path.name} with :corporation ${JSON.stringify(id)} is 400`, async () => {
          const sent = await send(port, path.method, path.path.replace('{id}', id), {
            headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
            ...(path.method === 'GET' || path.method === 'DELETE'
              ? {}
              : { body: JSON.stringify(expertBody()) }),
          })
          if (sent.status >= 500) fiveHundreds++
          assertRejected(sent, 400, 'validation_failed', id)
        })
      }
    }

    test('SQL metacharacters are stored and returned literally', async () => {
      const tricky = 'Robert\'); DROP TABLE experts;-- " OR 1=1 %_\\'
      const created = await send(port, 'POST', `/v2/organization/${ctx.tenant.orgId}/expert`, {
        headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
        body: JSON.stringify(expertBody({ lastname: tricky, department: '%' })),
      })
      assert.equal(created.status, 200)
      const { username } = parsed(Created, created.body.data)
      const read = await send(port, 'GET', `/v2/organization/${ctx.tenant.orgId}/expert/${username}`, {
        headers: ctx.tenant.auth,
      })
      const [account] = parsed(
        Type.Object({
          account: Type.Array(Type.Object({ lastname: Type.String(), department: Type.String() })),
        }),
        read.body.data,
      ).account
      assert.equal(account?.lastname, tricky)
      assert.equal(account?.department, '%')
    })

    test('HTML is returned verbatim inside JSON, with nosniff', async () => {
      const html = '<script>alert("x")</script><img src=x onerror=alert(1)>'
      const created = await send(port, 'POST', `/v2/organization/${ctx.tenant.orgId}/expert`, {
        headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
        body: JSON.stringify(expertBody({ job_title: html })),
      })
      const { username } = parsed(Created, created.body.data)
      const read = await send(port, 'GET', `/v2/organization/${ctx.tenant.orgId}/expert/${username}`, {
        headers: ctx.tenant.auth,
      })
      assert.equal(read.headers.get('x-content-type-options'), 'nosniff')
      assert.equal(read.headers.get('content-type'), 'application/json; charset=utf-8')
      const { account } = parsed(
        Type.Object({ account: Type.Array(Type.Object({ job_title: Type.String() })) }),
        read.body.data,
      )
      assert.equal(account[0]?.job_title, html)
    })

    test('unknown routes are 404 and wrong methods 405, in the envelope', async () => {
      for (const [method, path, status, code] of [
        ['GET', '/v2/organization/1/experts', 404, 'not_found'],
        ['GET', '/../../etc/passwd', 404, 'not_found'],
        ['POST', '/v2/organization/1/expert/someone', 405, 'method_not_allowed'],
        ['DELETE', '/v2/oauth/token', 405, 'method_not_allowed'],
      ] as const) {
        const sent = await send(port, method, path, { headers: ctx.tenant.auth })
        assertRejected(sent, status, code, `${method} ${path}`)
      }
    })

    test('no case produced a 5xx', () => {
      assert.equal(fiveHundreds, 0)
    })
  },
  // Every case sends the main tenant's one token: more requests than the API's per-token limit allows in a minute.
  { config: { rateLimitApi: 0 } },
)
