import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { before, test } from 'node:test'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/db/database.js'
import { ERROR_STATUS } from '../src/errors.js'
import { describeEachDialect } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { deref, type JsonNode } from './helpers/openapi.js'

interface Operation {
  path: string
  method: string
  operation: JsonNode
}

function operationsOf(document: JsonNode): Operation[] {
  return Object.entries(document.paths as Record<string, JsonNode>).flatMap(([path, item]) =>
    Object.entries(item as Record<string, JsonNode>).map(([method, operation]) => ({
      path,
      method,
      operation,
    })),
  )
}

/** Every `pattern` keyword anywhere in the document. */
function patternsOf(node: JsonNode, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) patternsOf(item, found)
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') found.add(value)
      else patternsOf(value, found)
    }
  }
  return found
}

/** Outside /v2 (probes, discovery) and the OAuth endpoints: no bearer token. */
const openPath = (path: string) => !path.startsWith('/v2/') || path.startsWith('/v2/oauth/')

/** CONTRACT §13: `read` for GETs, `write` for changes, the inquiry scopes for the inquiry routes. */
function expectedScope(method: string, path: string): string {
  if (path.endsWith('/notifications') || /\/sso(\/|$)/.test(path)) return 'admin'
  // The admin API (CONTRACT §14): clients, the webhook, people and the audit log.
  if (/\/organization\/\{corporation\}\/(client|webhook|people|audit)(\/|$)/.test(path)) return 'admin'
  if (/\/inquiry$/.test(path) && method === 'delete') return 'admin'
  if (/\/inquiry\/\{id\}$/.test(path) && method === 'patch') return 'inquiries:handle'
  if (/\/inquiry(\/|$)/.test(path)) return method === 'get' ? 'inquiries:read' : 'inquiries:create'
  // The CSV import's template, an expert's works queue and the import runs are not the public's.
  if (/\/experts\/import\/template$|\/works(\/|$)|\/imports$/.test(path))
    return method === 'get' ? 'read' : 'write'
  // An expert's fingerprint lists its hidden concepts; matching a text is a read (CONTRACT §20).
  if (/\/concepts(\/|$)/.test(path)) return method === 'get' ? 'read' : 'write'
  if (path.endsWith('/expert/match')) return 'read:public'
  // The editorial workflow (CONTRACT §21): its settings are the admin's; checklists and versions are never the public's.
  if (path.endsWith('/workflow')) return 'admin'
  if (/\/(checklist|versions|drafts)(\/|$)/.test(path)) return method === 'get' ? 'read' : 'write'
  // A profile's delegates are its editors' business (CONTRACT §21).
  if (/\/delegates(\/|$)/.test(path)) return method === 'get' ? 'read' : 'write'
  return method === 'get' ? 'read:public' : 'write'
}

describeEachDialect('OpenAPI document for code generators', (ctx) => {
  let document: JsonNode
  before(async () => {
    document = (await ctx.inject({ method: 'GET', url: '/v2/openapi.json' })).json()
  })

  test('every operation has a unique operationId, tags and a summary', () => {
    const ids = new Map<string, string>()
    for (const { path, method, operation } of operationsOf(document)) {
      const where = `${method.toUpperCase()} ${path}`
      assert.match(operation.operationId ?? '', /^[a-z][A-Za-z]+$/, `${where} has no camelCase operationId`)
      assert.equal(ids.get(operation.operationId), undefined, `${where} repeats ${operation.operationId}`)
      ids.set(operation.operationId, where)
      assert.ok(operation.tags?.length > 0, `${where} has no tags`)
      assert.ok(operation.summary, `${where} has no summary`)
    }
    assert.ok(ids.size >= 10)
    for (const tag of document.tags) assert.ok(tag.description, `tag ${tag.name} has a description`)
  })

  test('shapes are named component schemas: profile, section elements, post, question, error', () => {
    const schemas = document.components.schemas
    for (const name of [
      'Profile',
      'ProfileAccount',
      'ProfileEducation',
      'ProfileFee',
      'SpotlightRead',
      'Spotlight',
      'QuestionRead',
      'Question',
      'Answer',
      'PageSeo',
      'ContentTag',
      'Error',
      'ErrorDetail',
      'OAuthError',
      'ExpertCreate',
      'DonorInquiry',
    ]) {
      assert.ok(schemas[name], `components.schemas.${name}`)
    }
    const profile = document.paths['/v2/organization/{corporation}/expert/{username}'].get
    const data = profile.responses['200'].content['application/json'].schema.properties.data
    assert.equal(data.$ref, '#/components/schemas/Profile')
    assert.equal(schemas.Profile.properties.education.items.$ref, '#/components/schemas/ProfileEducation')
    const codes = deref(document, schemas.Error.properties.error).properties.code.enum
    assert.deepEqual([...codes].sort(), Object.keys(ERROR_STATUS).sort())
    for (const { operation } of operationsOf(document)) {
      const refs = JSON.stringify(operation).match(/#\/components\/schemas\/[\w.-]+/g) ?? []
      for (const ref of refs) assert.ok(deref(document, { $ref: ref }), `${ref} resolves`)
    }
  })

  test('security: oauth2 client credentials with the token URL; scopes per operation; public endpoints []', () => {
    const scheme = document.components.securitySchemes.oauth2
    assert.equal(scheme.type, 'oauth2')
    const server = document.servers[0].url
    assert.equal(scheme.flows.clientCredentials.tokenUrl, `${server}/v2/oauth/token`)
    assert.deepEqual(Object.keys(scheme.flows.clientCredentials.scopes).sort(), [
      'admin',
      'inquiries:create',
      'inquiries:handle',
      'inquiries:read',
      'read',
      'read:public',
      'write',
    ])
    for (const { path, method, operation } of operationsOf(document)) {
      const where = `${method.toUpperCase()} ${path}`
      if (path.startsWith('/v2/oauth/')) {
        assert.deepEqual(operation.security, [{ clientBasic: [] }, {}], where)
      } else if (openPath(path)) {
        assert.deepEqual(operation.security, [], where)
      } else {
        assert.equal(operation.security.length, 1, where)
        const [scope, ...more] = operation.security[0].oauth2
        assert.equal(more.length, 0, where)
        assert.equal(scope, expectedScope(method, path), where)
      }
    }
    assert.equal(document.components.securitySchemes.clientBasic.scheme, 'basic')
  })

  test('bodies: both media types everywhere (uploads: multipart and the raw file; the sign-in routes: JSON only); token and revoke declare their required parameters', () => {
    let bodies = 0
    for (const { path, method, operation } of operationsOf(document)) {
      if (!operation.requestBody) continue
      bodies++
      const types = Object.keys(operation.requestBody.content).sort()
      if (types.includes('multipart/form-data')) {
        assert.deepEqual(
          types.filter((type) => !['multipart/form-data', 'application/pdf'].includes(type)),
          ['image/jpeg', 'image/png', 'image/webp'],
          `${method} ${path}`,
        )
        continue
      }
      assert.deepEqual(
        Object.keys(operation.requestBody.content).sort(),
        path.startsWith('/auth/')
          ? ['application/json']
          : ['application/json', 'application/x-www-form-urlencoded'],
        `${method} ${path}`,
      )
    }
    assert.ok(bodies >= 6)
    const token = document.paths['/v2/oauth/token'].post
    const tokenBody = deref(document, token.requestBody.content['application/x-www-form-urlencoded'].schema)
    assert.deepEqual(tokenBody.required, ['grant_type'])
    const revoke = document.paths['/v2/oauth/revoke'].post
    const revokeBody = deref(document, revoke.requestBody.content['application/json'].schema)
    assert.deepEqual(revokeBody.required, ['token'])
    assert.equal(
      deref(document, token.responses['4XX'].content['application/json'].schema).title,
      'OAuthError',
    )
  })

  test('headers and the 304/308/401/403/429/503 responses are documented', () => {
    for (const { path, method, operation } of operationsOf(document)) {
      const where = `${method.toUpperCase()} ${path}`
      const ok = operation.responses['200'] ?? operation.responses['202']
      assert.ok(ok.headers['X-Request-Id'], `${where} X-Request-Id`)
      // The OAuth endpoints answer these in their RFC 6749 error shape too (oauth-error-schema.test.ts).
      const oauth = path.startsWith('/v2/oauth/') ? 'OAuth' : ''
      assert.equal(operation.responses['503'].$ref, `#/components/responses/${oauth}Unavailable`, where)
      if (path.startsWith('/v2/')) {
        assert.equal(operation.responses['429'].$ref, `#/components/responses/${oauth}TooManyRequests`, where)
        assert.ok(ok.headers['RateLimit-Remaining'], `${where} RateLimit-Remaining`)
      }
      if (!openPath(path)) {
        assert.equal(operation.responses['401'].$ref, '#/components/responses/Unauthorized', where)
        assert.equal(operation.responses['403'].$ref, '#/components/responses/Forbidden', where)
      }
      // An old username answers 308 under /expert and /staff alike (src/experts/redirects.ts).
      if (path.split('/').includes('{username}'))
        assert.equal(operation.responses['308']?.$ref, '#/components/responses/RenamedExpert', where)
      if (method === 'get' && !openPath(path)) {
        assert.ok(ok.headers.ETag, `${where} ETag`)
        assert.equal(operation.responses['304'].$ref, '#/components/responses/NotModified', where)
      }
    }
    const donor = document.paths['/v2/organization/{corporation}/inquiry/donor'].post
    assert.ok(donor.responses['200'].headers['Idempotent-Replayed'])
    assert.ok(document.components.responses.TooManyRequests.headers['Retry-After'])
    assert.ok(document.components.responses.Unavailable.headers['Retry-After'])
  })

  test('servers: the listening address when no public URL is configured', async () => {
    const config = loadConfig({ logLevel: 'silent' }, {})
    const database = openDatabase(':memory:')
    const app = await buildApp({ config, database })
    try {
      await app.listen({ host: '127.0.0.1', port: 0 })
      const port = listeningPort(app.server)
      const served = (await fetch(`http://127.0.0.1:${port}/v2/openapi.json`)).json() as Promise<JsonNode>
      assert.equal((await served).servers[0].url, `http://127.0.0.1:${port}`)
    } finally {
      await app.close()
      await database.close()
    }
  })

  test('servers and the token URL: EXPERTDIR_PUBLIC_URL when set', async () => {
    const config = loadConfig(
      { logLevel: 'silent' },
      { EXPERTDIR_PUBLIC_URL: 'https://experts.example.org/' },
    )
    const database = openDatabase(':memory:')
    const app = await buildApp({ config, database })
    try {
      const served = (await app.inject({ method: 'GET', url: '/v2/openapi.json' })).json()
      assert.deepEqual(
        served.servers.map((server: { url: string }) => server.url),
        ['https://experts.example.org'],
      )
      assert.equal(
        served.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl,
        'https://experts.example.org/v2/oauth/token',
      )
    } finally {
      await app.close()
      await database.close()
    }
  })

  test('text patterns are portable: no surrogate escapes, \\s or \\u{...}; Python re agrees with JavaScript', () => {
    const patterns = [...patternsOf(document)]
    assert.ok(patterns.length > 5)
    for (const pattern of patterns) {
      assert.doesNotMatch(pattern, /\\u[dD][89a-fA-F]/, pattern)
      assert.doesNotMatch(pattern, /\\s|\\u\{/, pattern)
    }
    const samples = [
      'plain text',
      'Zoë Müller 😀',
      'line\nbreak',
      'tab\there',
      'nul\u0000',
      'del\u007f',
      'lone \ud800 high',
      'lone \udfff low',
      'nbsp\u00a0',
      'https://example.org/a?b#c',
      'https://ex ample.org',
      'https://例え.jp/パス',
      '',
    ]
    const js = patterns.map((pattern) => samples.map((sample) => new RegExp(pattern, 'u').test(sample)))
    const python = spawnSync(
      'python3',
      [
        '-c',
        'import json,re,sys\n' +
          'd=json.load(sys.stdin)\n' +
          'print(json.dumps([[re.search(p,s) is not None for s in d["samples"]] for p in d["patterns"]]))',
      ],
      // JSON.stringify escapes lone surrogates (\\udXXX), so they reach Python's str intact.
      { input: JSON.stringify({ patterns, samples }) },
    )
    if (python.error) return // no python3 on this machine: the static checks above still ran
    assert.equal(python.status, 0, python.stderr.toString())
    assert.deepEqual(JSON.parse(python.stdout.toString()), js)
  })
})
