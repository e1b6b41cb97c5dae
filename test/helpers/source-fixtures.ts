import { readFileSync } from 'node:fs'
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import { listeningPort } from './net.js'

/**
 * A loopback stand-in for ORCID, OpenAlex, Crossref and PubMed: a real `node:http` server on
 * 127.0.0.1, port 0, that the connectors reach through their real HTTP path. Routes are keyed by
 * method + path + sorted query (and form body), ignoring `mailto`, `email`, `tool` and `api_key`;
 * every request is logged with its time on the given clock. Faults replace a route's reply on one
 * call number or on every call; `delay` holds the usual reply back (a slow source), `hang` holds it for ever.
 */

export const FIXTURES_DIR = new URL('../fixtures/sources/', import.meta.url)

/** A fixture file's text (test/fixtures/sources/). */
export function fixtureText(name: string): string {
  return readFileSync(new URL(name, FIXTURES_DIR), 'utf8')
}

export function fixtureJson(name: string): unknown {
  return JSON.parse(fixtureText(name))
}

const IGNORED = new Set(['mailto', 'email', 'tool', 'api_key'])

export interface Reply {
  status?: number
  headers?: Record<string, string>
  body: string | Buffer
}

export type Fault =
  | { kind: 'status'; status: number; retryAfter?: 'seconds' | 'date'; seconds?: number }
  | { kind: 'hang' }
  /** The route's usual reply, held back `ms` milliseconds: a slow source (dropped if the client goes away). */
  | { kind: 'delay'; ms: number }
  | { kind: 'truncate' }
  | { kind: 'malformed' }
  | { kind: 'redirect'; location: string }

export interface LoggedRequest {
  method: string
  path: string
  /** Every parameter, the ignored ones included. */
  params: URLSearchParams
  key: string
  /** On the server's clock. */
  at: number
  headers: IncomingMessage['headers']
  /** Requests of this server in flight when this one arrived, itself included. */
  inFlight: number
}

type Handler = (params: URLSearchParams, path: string) => Reply

/** `GET /works?b=2&a=1` → `GET /works?a=1&b=2`, ignored names dropped. */
export function routeKey(method: string, path: string, params: URLSearchParams): string {
  const kept = [...params]
    .filter(([name]) => !IGNORED.has(name))
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
  const query = new URLSearchParams(kept).toString()
  return `${method.toUpperCase()} ${path}${query ? `?${query}` : ''}`
}

/** The key of a route written as `GET /path?query`. */
function keyOf(route: string): string {
  const [method = 'GET', target = '/'] = route.split(' ', 2)
  const url = new URL(target, 'http://fixture')
  return routeKey(method, url.pathname, url.searchParams)
}

export interface SourceFixtureServer {
  readonly url: string
  readonly log: LoggedRequest[]
  /** The most requests that were ever in flight at once. */
  readonly maxInFlight: number
  /** A fixed reply for `GET /path?query` (the query in any order). */
  reply(route: string, reply: Reply): void
  /** A JSON fixture file as a route's reply. */
  json(route: string, file: string): void
  /** An XML fixture file as a route's reply. */
  xml(route: string, file: string): void
  /** Replies computed from the request for every path starting with `prefix` (generated records). */
  handle(method: string, prefix: string, handler: Handler): void
  /** A fault on the route's `call`-th request (1-based), or on every request when no call is given. */
  fault(route: string, fault: Fault, call?: number): void
  /** Requests whose key is the route's. */
  requests(route: string): LoggedRequest[]
  close(): Promise<void>
}

export const jsonReply = (value: unknown, status = 200): Reply => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(value),
})

export async function startSourceFixtures(
  options: { now?: () => number } = {},
): Promise<SourceFixtureServer> {
  const now = options.now ?? (() => Date.now())
  const routes = new Map<string, Reply>()
  const handlers: { method: string; prefix: string; handler: Handler }[] = []
  const faults = new Map<string, Map<number | 'every', Fault>>()
  const calls = new Map<string, number>()
  const log: LoggedRequest[] = []
  const hanging = new Set<ServerResponse>()
  let inFlight = 0
  let maxInFlight = 0

  function answer(request: IncomingMessage, response: ServerResponse, body: string): void {
    const url = new URL(request.url ?? '/', 'http://fixture')
    const params = new URLSearchParams(url.searchParams)
    if (request.method === 'POST' && /form-urlencoded/.test(request.headers['content-type'] ?? '')) {
      for (const [name, value] of new URLSearchParams(body)) params.append(name, value)
    }
    const method = request.method ?? 'GET'
    const key = routeKey(method, url.pathname, params)
    inFlight += 1
    maxInFlight = Math.max(maxInFlight, inFlight)
    log.push({ method, path: url.pathname, params, key, headers: request.headers, at: now(), inFlight })
    response.on('close', () => {
      inFlight -= 1
      hanging.delete(response)
    })
    const call = (calls.get(key) ?? 0) + 1
    calls.set(key, call)
    const fault = faults.get(key)?.get(call) ?? faults.get(key)?.get('every')
    const reply =
      routes.get(key) ??
      handlers
        .find((h) => h.method === method && url.pathname.startsWith(h.prefix))
        ?.handler(params, url.pathname)
    if (fault) applyFault(response, fault, reply)
    else send(response, reply ?? jsonReply({ error: 'no fixture', message: key }, 404))
  }

  function applyFault(response: ServerResponse, fault: Fault, reply: Reply | undefined): void {
    switch (fault.kind) {
      case 'status': {
        const seconds = fault.seconds ?? 2
        const headers: Record<string, string> = { 'content-type': 'application/json' }
        if (fault.retryAfter === 'seconds') headers['retry-after'] = String(seconds)
        if (fault.retryAfter === 'date')
          headers['retry-after'] = new Date(now() + seconds * 1000).toUTCString()
        send(response, {
          status: fault.status,
          headers,
          body: JSON.stringify({ error: `HTTP ${fault.status}` }),
        })
        return
      }
      case 'hang':
        hanging.add(response)
        return
      case 'delay': {
        hanging.add(response)
        const timer = setTimeout(
          () => send(response, reply ?? jsonReply({ error: 'no fixture' }, 404)),
          fault.ms,
        )
        response.on('close', () => clearTimeout(timer))
        return
      }
      case 'truncate': {
        const body = reply?.body ?? '{"results":[]}'
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body) + 100),
        })
        response.write(body.slice(0, Math.max(1, Math.floor(body.length / 2))))
        setImmediate(() => response.destroy())
        return
      }
      case 'malformed': {
        const body = reply?.body ?? '{"results":[]}'
        const cut = body.slice(0, Math.max(1, Math.floor(body.length / 2)))
        send(response, { status: 200, headers: reply?.headers ?? {}, body: cut })
        return
      }
      case 'redirect':
        send(response, { status: 301, headers: { location: fault.location }, body: '' })
    }
  }

  function send(response: ServerResponse, reply: Reply): void {
    response.writeHead(reply.status ?? 200, {
      'content-length': String(Buffer.byteLength(reply.body)),
      ...reply.headers,
    })
    response.end(reply.body)
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => answer(request, response, Buffer.concat(chunks).toString('utf8')))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = listeningPort(server)

  const reply = (route: string, value: Reply) => routes.set(keyOf(route), value)
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    get maxInFlight() {
      return maxInFlight
    },
    reply,
    json: (route, file) =>
      reply(route, { headers: { 'content-type': 'application/json' }, body: fixtureText(file) }),
    xml: (route, file) => reply(route, { headers: { 'content-type': 'text/xml' }, body: fixtureText(file) }),
    handle: (method, prefix, handler) => handlers.push({ method, prefix, handler }),
    fault(route, fault, call) {
      const key = keyOf(route)
      const byCall = faults.get(key) ?? new Map<number | 'every', Fault>()
      byCall.set(call ?? 'every', fault)
      faults.set(key, byCall)
    },
    requests: (route) => log.filter((entry) => entry.key === keyOf(route)),
    async close() {
      for (const response of hanging) response.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Josiah Carberry, ORCID's own fictitious researcher: the record every golden fixture is about. */
export const CARBERRY = '0000-0002-1825-0097'
/** A generated hyper-author: thousands of works in every source, so that every paging loop must end. */
export const HYPER = '0000-0003-1234-5674'
export const HYPER_WORKS = { orcid: 2_500, openalex: 250, crossref: 250, pubmed: 450 }

export const OPENALEX_SELECT =
  'id,doi,ids,title,display_name,publication_year,publication_date,type,primary_location,authorships,abstract_inverted_index,topics,keywords,mesh'
export const CROSSREF_SELECT = 'DOI,title,author,issued,container-title,type,URL,abstract'
const OPENALEX_CURSOR_2 = 'IlsxNjA5MzcyODAwMDAwLCAnaHR0cHM6Ly9vcGVuYWxleC5vcmcvVzMwMDAwMDAwMDInXSI='
const OPENALEX_CURSOR_3 = 'IlsxNDk4Nzc3MjAwMDAwLCAnaHR0cHM6Ly9vcGVuYWxleC5vcmcvVzMwMDAwMDAwMDMnXSI='

/** The routes of each source under its own prefix (`/orcid`, `/openalex`, `/crossref`, `/pubmed`). */
export const ROUTES = {
  orcidWorks: `GET /orcid/${CARBERRY}/works`,
  orcidBulk: `GET /orcid/${CARBERRY}/works/1001,1003,1004`,
  openalexPage: (cursor: string, filter = `authorships.author.orcid:${CARBERRY}`) =>
    `GET /openalex/works?${new URLSearchParams({ filter, select: OPENALEX_SELECT, per_page: '100', cursor })}`,
  crossrefPage: (cursor: string, orcid = CARBERRY) =>
    `GET /crossref/works?${new URLSearchParams({ filter: `orcid:${orcid}`, rows: '100', select: CROSSREF_SELECT, cursor })}`,
  pubmedSearch: (term: string, retstart = 0, retmax = 200) =>
    `GET /pubmed/esearch.fcgi?${new URLSearchParams({ db: 'pubmed', term, retmode: 'json', retmax: String(retmax), retstart: String(retstart) })}`,
  pubmedFetch: (ids: string[]) =>
    `GET /pubmed/efetch.fcgi?${new URLSearchParams({ db: 'pubmed', retmode: 'xml', id: ids.join(',') })}`,
  carberryNameTerm: '"Carberry J"[au] AND "Brown University"[ad]',
  openalexCursors: ['*', OPENALEX_CURSOR_2, OPENALEX_CURSOR_3],
  crossrefCursors: ['*', 'DnF1ZXJ5VGhlbkZldGNoBgAAAAAA'],
}

/** Every fixture file and the shape it must have (the shape test reads this list). */
export const FIXTURE_FILES = {
  orcidWorks: 'orcid-works.json',
  orcidBulk: 'orcid-bulk.json',
  orcidToken: 'orcid-token.json',
  openalexPages: ['openalex-works-1.json', 'openalex-works-2.json', 'openalex-works-3.json'],
  openalexAuthor: 'openalex-author-merged.json',
  crossrefPages: ['crossref-works-1.json', 'crossref-works-2.json'],
  pubmedSearches: ['pubmed-esearch-orcid.json', 'pubmed-esearch-name.json', 'pubmed-esearch-empty.json'],
  pubmedArticles: ['pubmed-efetch.xml', 'pubmed-efetch-empty.xml'],
}

/** Carberry's fixtures in every source, and the generated hyper-author. */
export function registerStandardFixtures(server: SourceFixtureServer): void {
  server.json(ROUTES.orcidWorks, FIXTURE_FILES.orcidWorks)
  server.json(ROUTES.orcidBulk, FIXTURE_FILES.orcidBulk)
  server.handle('POST', '/orcid-token', () => ({
    headers: { 'content-type': 'application/json' },
    body: fixtureText(FIXTURE_FILES.orcidToken),
  }))
  ROUTES.openalexCursors.forEach((cursor, index) => {
    server.json(ROUTES.openalexPage(cursor), FIXTURE_FILES.openalexPages[index] ?? '')
    server.json(
      ROUTES.openalexPage(cursor, 'authorships.author.id:A5000000777'),
      FIXTURE_FILES.openalexPages[index] ?? '',
    )
  })
  server.json('GET /openalex/authors/A5000000777', FIXTURE_FILES.openalexAuthor)
  server.fault('GET /openalex/authors/A5000000123', {
    kind: 'redirect',
    location: '/openalex/authors/A5000000777',
  })
  ROUTES.crossrefCursors.forEach((cursor, index) => {
    server.json(ROUTES.crossrefPage(cursor), FIXTURE_FILES.crossrefPages[index] ?? '')
  })
  server.json(ROUTES.pubmedSearch(`${CARBERRY}[auid]`), 'pubmed-esearch-orcid.json')
  server.json(ROUTES.pubmedSearch(ROUTES.carberryNameTerm), 'pubmed-esearch-name.json')
  server.xml(ROUTES.pubmedFetch(['31234567', '29876543', '27000001']), 'pubmed-efetch.xml')
  // The smoke check's smaller reads.
  server.json(ROUTES.pubmedSearch(`${CARBERRY}[auid]`, 0, 20), 'pubmed-esearch-orcid.json')
  server.xml(ROUTES.pubmedFetch(['31234567', '29876543']), 'pubmed-efetch.xml')
  registerHyperAuthor(server)
}

const range = (count: number, from = 0) => Array.from({ length: count }, (_, index) => from + index)

function registerHyperAuthor(server: SourceFixtureServer): void {
  const putCode = (index: number) => 500_000 + index
  server.handle('GET', `/orcid/${HYPER}/works`, (_params, path) => {
    const tail = path.slice(`/orcid/${HYPER}/works`.length)
    if (tail === '') {
      const group = range(HYPER_WORKS.orcid).map((index) => ({
        'external-ids': {
          'external-id': [
            {
              'external-id-type': 'doi',
              'external-id-value': `10.5555/hyper.${index}`,
              'external-id-relationship': 'self',
            },
          ],
        },
        'work-summary': [
          {
            'put-code': putCode(index),
            title: { title: { value: `Hyper work ${index}` } },
            type: 'journal-article',
          },
        ],
      }))
      return jsonReply({ 'last-modified-date': { value: 1 }, group })
    }
    const codes = tail.slice(1).split(',').map(Number)
    if (codes.length > 100)
      return jsonReply({ 'response-code': 400, 'developer-message': 'too many put-codes' }, 400)
    return jsonReply({
      bulk: codes.map((code) => ({
        work: {
          'put-code': code,
          title: { title: { value: `Hyper work ${code - 500_000}` } },
          type: 'journal-article',
        },
      })),
    })
  })
  server.handle('GET', '/openalex/works', (params) => {
    if (params.get('filter') !== `authorships.author.orcid:${HYPER}`)
      return jsonReply({ error: 'no fixture' }, 404)
    const cursor = params.get('cursor') ?? '*'
    const page = cursor === '*' ? 0 : Number(cursor.replace('hyper-', ''))
    const results = range(100, page * 100)
      .filter((index) => index < HYPER_WORKS.openalex)
      .map((index) => ({
        id: `https://openalex.org/W${9_000_000 + index}`,
        title: `Hyper work ${index}`,
        authorships: [],
      }))
    const next = results.length > 0 ? `hyper-${page + 1}` : null
    return jsonReply({ meta: { count: HYPER_WORKS.openalex, next_cursor: next }, results })
  })
  server.handle('GET', '/crossref/works', (params) => {
    if (params.get('filter') !== `orcid:${HYPER}`) return jsonReply({ error: 'no fixture' }, 404)
    const cursor = params.get('cursor') ?? '*'
    const page = cursor === '*' ? 0 : Number(cursor.replace('hyper-', ''))
    const items = range(100, page * 100)
      .filter((index) => index < HYPER_WORKS.crossref)
      .map((index) => ({ DOI: `10.5555/hyper.${index}`, title: [`Hyper work ${index}`] }))
    // Crossref sends a next cursor on the last (empty) page too.
    return jsonReply({
      status: 'ok',
      message: { 'total-results': HYPER_WORKS.crossref, items, 'next-cursor': `hyper-${page + 1}` },
    })
  })
  server.handle('GET', '/pubmed/esearch.fcgi', (params) => {
    if (params.get('term') !== `${HYPER}[auid]`) return jsonReply({ error: 'no fixture' }, 404)
    const start = Number(params.get('retstart'))
    const max = Number(params.get('retmax'))
    const ids = range(max, start)
      .filter((index) => index < HYPER_WORKS.pubmed)
      .map((index) => String(40_000_000 + index))
    return jsonReply({
      esearchresult: {
        count: String(HYPER_WORKS.pubmed),
        retmax: String(ids.length),
        retstart: String(start),
        idlist: ids,
      },
    })
  })
  const articles = (ids: string[]) =>
    `<?xml version="1.0"?>\n<PubmedArticleSet>${ids
      .map(
        (id) =>
          `<PubmedArticle><MedlineCitation><PMID Version="1">${id}</PMID><Article><ArticleTitle>Hyper article ${id}</ArticleTitle></Article></MedlineCitation></PubmedArticle>`,
      )
      .join('\n')}</PubmedArticleSet>`
  server.handle('POST', '/pubmed/efetch.fcgi', (params) => ({
    headers: { 'content-type': 'text/xml' },
    body: articles((params.get('id') ?? '').split(',')),
  }))
  server.handle('GET', '/pubmed/efetch.fcgi', (params) => {
    const ids = (params.get('id') ?? '').split(',')
    if (ids.length > 200) return { status: 414, body: 'Request-URI Too Long' }
    return { headers: { 'content-type': 'text/xml' }, body: articles(ids) }
  })
}
