import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { after, before, test } from 'node:test'
import { type DefaultTreeAdapterMap, parse } from 'parse5'
import { buildApp } from '../../../src/app.js'
import { createClient as createApiClient } from '../../../src/auth/clients.js'
import { exampleFile, importDocument } from '../../../test/helpers/content.js'
import { describeEachDialect, inquiryBody } from '../../../test/helpers/harness.js'
import {
  createExpertdirClient,
  type ExpertdirClientOptions,
  ExpertdirError,
  metadataHtml,
  type PageMetadata,
  postMetadata,
  profileMetadata,
  questionMetadata,
} from '../src/index.js'

/** A TCP proxy that can drop the next response: the request reaches the server, its answer never returns. */
class ResponseDroppingProxy {
  private dropNext = false
  private readonly sockets = new Set<Socket>()
  port = 0
  private constructor(private readonly server: Server) {}

  static async start(targetPort: number): Promise<ResponseDroppingProxy> {
    let proxy: ResponseDroppingProxy | undefined
    const server = createServer((client) => proxy?.accept(client, targetPort))
    proxy = new ResponseDroppingProxy(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    proxy.port = (server.address() as AddressInfo).port
    return proxy
  }

  private accept(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1')
    for (const socket of [client, upstream]) {
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
      socket.on('error', () => socket.destroy())
    }
    client.pipe(upstream)
    upstream.on('data', (chunk) => {
      if (this.dropNext) {
        this.dropNext = false
        client.destroy()
        upstream.destroy()
        return
      }
      client.write(chunk)
    })
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  }

  dropNextResponse(): void {
    this.dropNext = true
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

type Element = DefaultTreeAdapterMap['element']
type ChildNode = DefaultTreeAdapterMap['childNode']

function elements(node: { childNodes?: ChildNode[] }, found: Element[] = []): Element[] {
  for (const child of node.childNodes ?? []) {
    if ('tagName' in child) {
      found.push(child)
      elements(child, found)
    }
  }
  return found
}

const attribute = (element: Element, name: string) => element.attrs.find((a) => a.name === name)?.value
const textOf = (element: Element) =>
  element.childNodes.map((child) => ('value' in child ? String(child.value) : '')).join('')

/** Parses the head tags as a browser would and checks every value came through unchanged. */
function assertHeadParses(meta: PageMetadata): void {
  const document = parse(`<!doctype html><html><head>${metadataHtml(meta)}</head><body></body></html>`)
  const all = elements(document)
  const head = all.find((element) => element.tagName === 'head')
  assert.ok(head)
  const inHead = elements(head)
  const title = inHead.filter((element) => element.tagName === 'title')
  assert.equal(title.length, 1)
  assert.equal(textOf(title[0] as Element), meta.title)
  const named = (name: string) =>
    inHead
      .filter((e) => e.tagName === 'meta' && attribute(e, 'name') === name)
      .map((e) => attribute(e, 'content'))
  assert.deepEqual(named('description'), [meta.description])
  const canonical = inHead.filter((e) => e.tagName === 'link' && attribute(e, 'rel') === 'canonical')
  assert.deepEqual(
    canonical.map((e) => attribute(e, 'href')),
    [meta.canonicalUrl],
  )
  const properties = inHead
    .filter((e) => e.tagName === 'meta' && attribute(e, 'property'))
    .map((e) => [attribute(e, 'property'), attribute(e, 'content')])
  assert.deepEqual(properties, meta.openGraph)
  for (const [name, content] of meta.twitter) assert.deepEqual(named(name), [content])
  const scripts = all.filter((element) => element.tagName === 'script')
  assert.equal(scripts.length, 1, 'no value opened another script element')
  assert.equal(attribute(scripts[0] as Element, 'type'), 'application/ld+json')
  assert.deepEqual(JSON.parse(textOf(scripts[0] as Element)), meta.jsonLd)
  assert.equal(all.filter((element) => element.tagName === 'body').length, 1)
}

const TRICKY = 'He said "hot" </script><script>alert(1)</script> & \'more\''

describeEachDialect(
  'typed client against a real server',
  (ctx) => {
    let baseUrl = ''
    let options: ExpertdirClientOptions
    let username = ''
    let spotlightId = 0
    let questionId = 0
    /** Statuses the client's transport saw, in order ("error" for a dropped connection). */
    const seen: string[] = []
    const recordingFetch: typeof fetch = async (input, init) => {
      try {
        const response = await fetch(input, init)
        seen.push(
          `${response.status} ${new URL(input instanceof Request ? input.url : String(input)).pathname}`,
        )
        return response
      } catch (error) {
        seen.push('error')
        throw error
      }
    }

    before(async () => {
      await ctx.app.listen({ host: '127.0.0.1', port: 0 })
      baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`
      const file = exampleFile()
      const [spotlight] = file.spotlights
      const [expert] = file.experts as Record<string, unknown>[]
      assert.ok(spotlight && expert)
      spotlight.title = TRICKY
      ;(spotlight.seo as Record<string, unknown>).title = TRICKY
      expert.firstname = 'Amara "Ama"'
      const result = await importDocument(ctx, ctx.tenant.orgId, file)
      username = result.ids.experts[0] as string
      spotlightId = result.ids.spotlights[0] as number
      questionId = result.ids.questions[0] as number
      options = {
        baseUrl,
        clientId: ctx.tenant.client.client_id,
        clientSecret: ctx.tenant.client.client_secret,
        organization: ctx.tenant.orgId,
        fetch: recordingFetch,
      }
    })

    test('obtains a token once and reuses it for every call', async () => {
      const client = createExpertdirClient(options)
      for (let i = 0; i < 3; i++) {
        const profile = await client.getExpert(username)
        assert.equal(profile.account[0]?.username, username)
      }
      assert.equal(client.stats().tokenRequests, 1)
    })

    test('renews the token shortly before it expires, with one request for concurrent callers', async () => {
      let shift = 0
      const client = createExpertdirClient({ ...options, now: () => ctx.clock.now() + shift })
      await client.getExpert(username)
      assert.equal(client.stats().tokenRequests, 1)
      shift = 200_000 // 100 s of the 300 s left: outside the 60 s margin, the token is reused
      await client.getExpert(username)
      assert.equal(client.stats().tokenRequests, 1)
      shift = 250_000 // 50 s left: inside the margin
      const profiles = await Promise.all(Array.from({ length: 5 }, () => client.getExpert(username)))
      assert.equal(profiles.length, 5)
      assert.equal(client.stats().tokenRequests, 2)
    })

    test('a revoked token is replaced once and the call succeeds', async () => {
      const client = createExpertdirClient(options)
      const first = await client.token()
      const revoked = await fetch(`${baseUrl}/v2/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: first,
          client_id: options.clientId,
          client_secret: options.clientSecret,
        }),
      })
      assert.equal(revoked.status, 200)
      seen.length = 0
      const profile = await client.getExpert(username)
      assert.equal(profile.account[0]?.username, username)
      assert.equal(client.stats().tokenRequests, 2)
      assert.notEqual(await client.token(), first)
      assert.deepEqual(seen, [
        `401 /v2/organization/${ctx.tenant.orgId}/expert/${username}`,
        '200 /v2/oauth/token',
        `200 /v2/organization/${ctx.tenant.orgId}/expert/${username}`,
      ])
    })

    test('revalidates GETs with If-None-Match and answers a 304 from its ETag cache', async () => {
      const client = createExpertdirClient(options)
      const path = `/v2/organization/${ctx.tenant.orgId}/expert/${username}`
      const first = await client.getExpert(username)
      seen.length = 0
      const second = await client.getExpert(username)
      assert.deepEqual(seen, [`304 ${path}`])
      assert.deepEqual(second, first)
      assert.equal(client.stats().cacheHits, 1)

      const changed = await ctx.inject({
        method: 'PUT',
        url: path,
        headers: ctx.tenant.auth,
        payload: { job_title: 'Dean of Science' },
      })
      assert.equal(changed.statusCode, 200)
      seen.length = 0
      const third = await client.getExpert(username)
      assert.deepEqual(seen, [`200 ${path}`])
      assert.equal(third.account[0]?.job_title, 'Dean of Science')
      assert.equal(client.stats().cacheHits, 1)
    })

    test('an inquiry whose response is lost is sent again with the same Idempotency-Key: one inquiry', async () => {
      const proxy = await ResponseDroppingProxy.start(Number(new URL(baseUrl).port))
      try {
        const client = createExpertdirClient({
          ...options,
          baseUrl: `http://127.0.0.1:${proxy.port}`,
          sleep: async () => {},
        })
        await client.token()
        const countInquiries = async () =>
          (await ctx.testDatabase.database.db.selectFrom('inquiries').select('id').execute()).length
        const before = await countInquiries()
        seen.length = 0
        proxy.dropNextResponse()
        const result = await client.sendInquiry('donor', inquiryBody('donor', username) as never)
        assert.equal(seen[0], 'error')
        assert.equal(seen.length, 2)
        assert.equal(result.replayed, true)
        assert.equal(await countInquiries(), before + 1)
        const stored = await ctx.testDatabase.database.db
          .selectFrom('inquiries')
          .select('id')
          .where('id', '=', result.id)
          .executeTakeFirst()
        assert.equal(stored?.id, result.id)
      } finally {
        await proxy.close()
      }
    })

    test('errors are typed: code, status, details and request id, from both error shapes', async () => {
      const client = createExpertdirClient(options)
      const missing = await client.getExpert('nobody-here').catch((error: unknown) => error)
      assert.ok(missing instanceof ExpertdirError)
      assert.equal(missing.status, 404)
      assert.equal(missing.code, 'not_found')
      assert.match(missing.requestId ?? '', /^[0-9a-f-]{36}$/)

      const invalid = await client
        .sendInquiry(
          'donor',
          inquiryBody('donor', username, { email: 'not-an-address', donor_type: 'x' }) as never,
        )
        .catch((error: unknown) => error)
      assert.ok(invalid instanceof ExpertdirError)
      assert.equal(invalid.code, 'validation_failed')
      assert.deepEqual(invalid.details.map((detail) => detail.field).sort(), ['donor_type', 'email'])

      const wrongSecret = createExpertdirClient({ ...options, clientSecret: 'wrong' })
      const refused = await wrongSecret.getExpert(username).catch((error: unknown) => error)
      assert.ok(refused instanceof ExpertdirError)
      assert.equal(refused.status, 401)
      assert.equal(refused.code, 'invalid_client')
      assert.ok(refused.message.length > 0)
    })

    test('honours Retry-After on 429: waits as told, or fails at once when told to wait too long', async () => {
      const limited = await buildApp({
        config: { ...ctx.config, rateLimitApi: 2, logLevel: 'silent' },
        database: ctx.testDatabase.database,
        now: ctx.clock.now,
      })
      await limited.listen({ host: '127.0.0.1', port: 0 })
      try {
        const issued = await createApiClient(
          ctx.testDatabase.database.db,
          ctx.tenant.orgId,
          'limited',
          Date.now(),
        )
        const sleeps: number[] = []
        const client = createExpertdirClient({
          ...options,
          clientId: issued.client_id,
          clientSecret: issued.client_secret,
          baseUrl: `http://127.0.0.1:${(limited.server.address() as AddressInfo).port}`,
          maxRetries: 1,
          maxRetryAfterSeconds: 3600,
          etagCacheSize: 0,
          sleep: async (ms) => {
            sleeps.push(ms)
          },
        })
        await client.getExpert(username)
        await client.getExpert(username)
        const error = await client.getExpert(username).catch((caught: unknown) => caught)
        assert.ok(error instanceof ExpertdirError)
        assert.equal(error.code, 'rate_limited')
        assert.equal(error.status, 429)
        assert.ok((error.retryAfter ?? 0) > 0)
        assert.equal(sleeps.length, 1, 'one wait, as long as Retry-After said')
        assert.ok((sleeps[0] ?? 0) >= 1000 && (sleeps[0] ?? 0) % 1000 === 0)

        const impatient = createExpertdirClient({
          ...options,
          clientId: issued.client_id,
          clientSecret: issued.client_secret,
          baseUrl: `http://127.0.0.1:${(limited.server.address() as AddressInfo).port}`,
          maxRetryAfterSeconds: 1,
          sleep: async (ms) => {
            sleeps.push(ms)
          },
        })
        // Limits are per token: this client's token gets its own two requests.
        await impatient.getExpert(username)
        await impatient.getExpert(username)
        const refused = await impatient.getExpert(username).catch((caught: unknown) => caught)
        assert.ok(refused instanceof ExpertdirError)
        assert.equal(refused.code, 'rate_limited')
        assert.equal(sleeps.length, 1, 'no wait longer than allowed')
      } finally {
        await limited.close()
      }
    })

    test('page metadata of a post: the tags of docs/page-metadata.md and BlogPosting JSON-LD, escaped', async () => {
      const client = createExpertdirClient(options)
      const read = await client.getSpotlight(spotlightId)
      const meta = postMetadata(read, { url: 'https://site.example/posts/1' })
      assert.equal(meta.title, TRICKY)
      assert.equal(meta.canonicalUrl, 'https://experts.northlake.example/posts/heat-waves')
      assert.deepEqual(
        meta.openGraph.filter(([key]) => key.startsWith('article:')).map(([key, value]) => `${key}=${value}`),
        [
          'article:published_time=2024-06-01T00:00:00Z',
          `article:modified_time=${new Date((read.spotlight[0]?.modified ?? 0) * 1000).toISOString().replace('.000', '')}`,
          'article:tag=Climate',
          'article:tag=Health',
        ],
      )
      assert.equal(meta.jsonLd['@type'], 'BlogPosting')
      assert.equal(meta.jsonLd.headline, TRICKY)
      assert.equal((meta.jsonLd.author as unknown[]).length, 2)
      const html = metadataHtml(meta)
      assert.ok(!html.includes('</script><script>'), 'the title cannot close the JSON-LD script')
      assertHeadParses(meta)
    })

    test('page metadata of a profile (Person) and a Q&A item (QAPage) parse back to the same values', async () => {
      const client = createExpertdirClient(options)
      const profile = await client.getExpert(username)
      const person = profileMetadata(profile, {
        url: `https://site.example/experts/${username}`,
        siteName: 'Site',
      })
      assert.equal(person.jsonLd['@type'], 'Person')
      assert.equal(person.jsonLd.givenName, 'Amara "Ama"')
      assert.equal(person.openGraph[0]?.[1], 'profile')
      assertHeadParses(person)

      const question = await client.getQuestion(questionId)
      const qa = questionMetadata(question, { url: 'https://site.example/qa/1' })
      assert.equal(qa.canonicalUrl, 'https://site.example/qa/1')
      assert.equal(qa.jsonLd['@type'], 'QAPage')
      const entity = qa.jsonLd.mainEntity as Record<string, unknown>
      assert.equal(entity.name, 'Will flood insurance get more expensive?')
      assert.equal(entity.answerCount, 1)
      assert.equal(
        (entity.suggestedAnswer as { text: string }[])[0]?.text,
        'Yes: heavier rain raises the expected losses insurers price in.',
      )
      assertHeadParses(qa)
    })

    after(() => {
      seen.length = 0
    })
  },
  { config: { tokenTtlSeconds: 300 } },
)

test('the OAuth endpoints’ RFC 6749 error body becomes the same typed error', async () => {
  const { errorFromResponse } = await import('../src/errors.js')
  const response = new Response(null, {
    status: 401,
    headers: { 'x-request-id': 'req-1', 'www-authenticate': 'Basic realm="expertdir"' },
  })
  const error = errorFromResponse(response, {
    success: false,
    error: 'invalid_client',
    error_description: 'Client authentication failed.',
  })
  assert.equal(error.code, 'invalid_client')
  assert.equal(error.message, 'Client authentication failed.')
  assert.equal(error.status, 401)
  assert.equal(error.requestId, 'req-1')
  assert.deepEqual(error.details, [])
})
