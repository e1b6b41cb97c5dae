import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { InjectOptions } from 'fastify'
import { Type } from 'typebox'
import { parsed } from './helpers/checked.js'
import { createExpert, describeEachDialect, openSecondApp, type SecondApp } from './helpers/harness.js'
import { testImage } from './helpers/images.js'
import { listeningPort } from './helpers/net.js'

/** Every URL-like string value in a JSON document that names one of our media files. */
function mediaUrlsIn(value: unknown, found: string[] = []): string[] {
  if (typeof value === 'string' && value.includes('/media/')) found.push(value)
  else if (Array.isArray(value)) for (const item of value) mediaUrlsIn(item, found)
  else if (value && typeof value === 'object')
    for (const item of Object.values(value)) mediaUrlsIn(item, found)
  return found
}

const MOVED = 'https://experts.example.edu/people'

/**
 * Photos are stored as media references and given the reader's address when read: a photo uploaded
 * at one address is shown from another after a move (a new `EXPERTDIR_PUBLIC_URL`, another port), by
 * every reader, including those answered from stored read documents and kept bodies.
 */
describeEachDialect('photo URLs after a move', (ctx) => {
  let username = ''
  let moved: SecondApp
  let lane: SecondApp
  before(async () => {
    username = await createExpert(ctx, ctx.tenant, { lastname: 'Moved' })
    const upload = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}/avatar`,
      headers: { ...ctx.tenant.auth, 'content-type': 'image/png', host: 'old-host.example:3000' },
      payload: await testImage('png', 300, 300),
    })
    assert.equal(upload.statusCode, 200, upload.body)
    assert.match(
      upload.json().data.avatar.m.url,
      /^http:\/\/old-host\.example:3000\/media\/\d+\/[0-9a-f]{32}$/,
    )
    const enable = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${ctx.tenant.orgId}`,
      headers: ctx.tenant.auth,
      payload: { public_directory: 1 },
    })
    assert.equal(enable.statusCode, 200, enable.body)
    const publish = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
      headers: ctx.tenant.auth,
      payload: { is_published: 1, is_private: 0 },
    })
    assert.equal(publish.statusCode, 200, publish.body)
    // Read once at the old address: the stored read document is built there.
    const first = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
      headers: { ...ctx.tenant.auth, host: 'old-host.example:3000' },
    })
    assert.equal(first.statusCode, 200)
    assert.match(first.json().data.avatar.l.url, /^http:\/\/old-host\.example:3000\/media\//)
    moved = await openSecondApp(ctx, { publicUrl: MOVED })
    // The kept-read lane answers repeated reads before Fastify: it must give the same addresses.
    lane = await openSecondApp(ctx, { publicUrl: MOVED, rateLimitApi: 0, logLevel: 'warn', corsOrigins: [] })
  })
  after(async () => {
    await moved.close()
    await lane.close()
  })

  const read = (app: SecondApp, options: InjectOptions) => app.app.inject(options)

  test('the kept-read lane gives kept profiles the new public address too', async () => {
    await lane.app.listen({ host: '127.0.0.1', port: 0 })
    const port = listeningPort(lane.app.server)
    const before = lane.app.keptReadLane?.answered ?? 0
    for (let round = 0; round < 3; round++) {
      const response = await fetch(
        `http://127.0.0.1:${port}/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
        { headers: ctx.tenant.auth },
      )
      assert.equal(response.status, 200)
      const urls = mediaUrlsIn(
        parsed(Type.Object({ data: Type.Object({ avatar: Type.Unknown() }) }), await response.json()).data
          .avatar,
      )
      assert.equal(urls.length, 4)
      for (const url of urls) assert.ok(url.startsWith(`${MOVED}/media/`), url)
    }
    assert.ok((lane.app.keptReadLane?.answered ?? 0) > before, 'the lane answered the repeated reads')
  })

  test('the profile, its kept body and the search results use the new public address', async () => {
    for (const app of [moved]) {
      for (let round = 0; round < 3; round++) {
        const profile = await read(app, {
          method: 'GET',
          url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
          headers: ctx.tenant.auth,
        })
        assert.equal(profile.statusCode, 200)
        const urls = mediaUrlsIn(profile.json().data.avatar)
        assert.equal(urls.length, 4)
        for (const url of urls) assert.ok(url.startsWith(`${MOVED}/media/`), url)
        const search = await read(app, {
          method: 'GET',
          url: `/v2/organization/${ctx.tenant.orgId}/expert?q=Moved`,
          headers: ctx.tenant.auth,
        })
        const found = search.json().data.experts.find((e: { username: string }) => e.username === username)
        const searchUrls = mediaUrlsIn(found.avatar)
        assert.equal(searchUrls.length, 4)
        for (const url of searchUrls) assert.ok(url.startsWith(`${MOVED}/media/`), url)
      }
    }
    const served = await read(moved, {
      method: 'GET',
      url: new URL(
        (
          await read(moved, {
            method: 'GET',
            url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
            headers: ctx.tenant.auth,
          })
        ).json().data.avatar.m.url,
      ).pathname.replace('/people', ''),
    })
    assert.equal(served.statusCode, 200, 'the file is where the reference says')
  })

  test('without a public address, each reader gets the host it asked', async () => {
    const profile = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
      headers: { ...ctx.tenant.auth, host: 'restored.example:8080' },
    })
    for (const url of mediaUrlsIn(profile.json().data.avatar))
      assert.ok(url.startsWith('http://restored.example:8080/media/'), url)
  })

  test('directory pages, the widget JSON and MCP answers use the new public address', async () => {
    const page = await read(moved, { method: 'GET', url: `/directory/${ctx.tenant.orgId}/${username}` })
    assert.equal(page.statusCode, 200)
    const sources = [...page.body.matchAll(/<img[^>]+src="([^"]+)"/g)].map((m) => m[1] ?? '')
    const photos = sources.filter((src) => src.includes('/media/'))
    assert.ok(photos.length > 0, 'the page shows the photo')
    for (const src of photos) assert.ok(src.startsWith(`${MOVED}/media/`), src)
    const list = await read(moved, { method: 'GET', url: `/directory/${ctx.tenant.orgId}/?q=Moved` })
    const listed = [...list.body.matchAll(/<img[^>]+src="([^"]+)"/g)].map((m) => m[1] ?? '')
    assert.ok(
      listed.some((src) => src.startsWith(`${MOVED}/media/`)),
      'the search page shows the photo',
    )
    for (const url of [
      `/directory/${ctx.tenant.orgId}/api/experts?q=Moved`,
      `/directory/${ctx.tenant.orgId}/api/experts/${username}`,
    ]) {
      const widget = await read(moved, { method: 'GET', url })
      assert.equal(widget.statusCode, 200, widget.body)
      const urls = mediaUrlsIn(widget.json())
      assert.ok(urls.length > 0, url)
      for (const found of urls) assert.ok(found.startsWith(`${MOVED}/media/`), found)
    }
    for (const [name, args] of [
      ['get_expert', { username }],
      ['search_experts', { q: 'Moved' }],
    ] as const) {
      const answer = await read(moved, {
        method: 'POST',
        url: '/mcp',
        headers: {
          ...ctx.tenant.auth,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      })
      assert.equal(answer.statusCode, 200, answer.body)
      const result = answer.json().result
      const urls = [
        ...mediaUrlsIn(result.structuredContent),
        // The JSON is the last block (a tool may put a summary for people first).
        ...mediaUrlsIn(JSON.parse(result.content.at(-1).text)),
      ]
      assert.ok(urls.length >= 4, `${name}: ${answer.body.slice(0, 300)}`)
      for (const url of urls) assert.ok(url.startsWith(`${MOVED}/media/`), `${name}: ${url}`)
    }
  })
})
