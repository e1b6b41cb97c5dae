import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { Type } from 'typebox'
import { createClient } from '../src/auth/clients.js'
import { parsed } from './helpers/checked.js'
import { createExpert, describeEachDialect, type TestContext } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { scopedToken } from './helpers/oauth.js'

/**
 * The MCP server's expert search and media availability (CONTRACT §22), through the SDK's client over
 * HTTP: `search_experts` takes `media_available` and says in its summary who can be interviewed.
 */
describeEachDialect('MCP: experts available for media', (ctx: TestContext) => {
  let client: Client
  let available = ''
  let unavailable = ''
  const until = Math.floor(Date.now() / 1000) + 30 * 86_400

  before(async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    const publish = { is_published: 1 }
    available = await createExpert(ctx, ctx.tenant, {
      firstname: 'Mira',
      lastname: 'Santos',
      job_title: 'Volcanologist',
      media_available: 1,
      media_available_until: until,
      interview_languages: ['pt-BR', 'en'],
      remote_ready: 1,
    })
    unavailable = await createExpert(ctx, ctx.tenant, {
      firstname: 'Otto',
      lastname: 'Berg',
      job_title: 'Volcanologist',
    })
    // An available expert of another organization never shows.
    await createExpert(ctx, ctx.other, { firstname: 'Xena', lastname: 'Other', media_available: 1 })
    for (const username of [available, unavailable]) {
      const response = await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
        headers: ctx.tenant.auth,
        payload: publish,
      })
      assert.equal(response.statusCode, 200, response.body)
    }
    const website = await createClient(
      ctx.testDatabase.database.db,
      ctx.tenant.orgId,
      'newsroom',
      ctx.clock.now(),
      ['read:public'],
    )
    const token = await scopedToken(ctx.app, website)
    client = new Client({ name: 'expertdir-test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(
        new URL('/mcp', `http://127.0.0.1:${listeningPort(ctx.app.server)}`),
        {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        },
      ),
    )
    // Listing the tools makes the client check each answer against the tool's output schema.
    const { tools } = await client.listTools()
    const search = tools.find((tool) => tool.name === 'search_experts')
    assert.ok(search?.inputSchema.properties?.media_available, 'search_experts takes media_available')
    assert.match(search?.description ?? '', /media_available=1/)
  })

  after(async () => {
    await client.close()
  })

  const call = async (args: Record<string, unknown>) =>
    CallToolResultSchema.parse(await client.callTool({ name: 'search_experts', arguments: args }))

  test('media_available=1 keeps the available experts; the summary says until when, in which languages and how', async () => {
    const result = await call({ q: 'volcanologist', media_available: 1 })
    assert.notEqual(result.isError, true, JSON.stringify(result.content))
    const structured = parsed(
      Type.Object({
        experts: Type.Array(Type.Object({ username: Type.String(), media_available: Type.Integer() })),
      }),
      result.structuredContent,
    )
    assert.deepEqual(
      structured.experts.map((expert) => [expert.username, expert.media_available]),
      [[available, 1]],
    )
    const [summary] = result.content
    assert.equal(summary?.type, 'text')
    const text = summary?.type === 'text' ? summary.text : ''
    const end = new Date(until * 1000).toISOString().slice(0, 16).replace('T', ' ')
    assert.match(
      text,
      new RegExp(
        `Mira Santos \\(username ${available}\\), Volcanologist: available for media until ${end} UTC`,
      ),
    )
    assert.match(text, /interviews in Brazilian Portuguese, English; remote/)
  })

  test('without the filter, the summary says who is not available', async () => {
    const result = await call({ q: 'volcanologist' })
    const [summary] = result.content
    const text = summary?.type === 'text' ? summary.text : ''
    assert.match(text, /^2 experts match/)
    assert.match(
      text,
      new RegExp(`Otto Berg \\(username ${unavailable}\\), Volcanologist: not available for media`),
    )
  })

  test('a bad media_available is a tool error naming the field', async () => {
    const result = await call({ media_available: 0 })
    assert.equal(result.isError, true)
    assert.match(JSON.stringify(result.content), /media_available/)
  })
})
