import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { Type } from 'typebox'
import { createClient } from '../src/auth/clients.js'
import { SimilarExperts } from '../src/meaning/schemas.js'
import { api, expectOk } from './helpers/api.js'
import { parsed, present } from './helpers/checked.js'
import { createExpert, describeEachDialect, type TestContext } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { scopedToken } from './helpers/oauth.js'

interface Person {
  first: string
  department: string
  topics: string[]
  bio: string
  visibility?: 'private' | 'unpublished'
}

const PEOPLE: Person[] = [
  {
    first: 'Ada',
    department: 'Engineering',
    topics: ['Flood risk', 'Coastal engineering', 'Hydrology'],
    bio: '<p>Ada models storm surge barriers and flood defences for coastal cities, and sea level rise.</p>',
  },
  {
    first: 'Ben',
    department: 'Engineering',
    topics: ['Coastal engineering', 'Sea level rise'],
    bio: '<p>Ben designs breakwaters and storm surge defences against coastal erosion.</p>',
  },
  {
    first: 'Cara',
    department: 'Geography',
    topics: ['Flood risk', 'Hydrology'],
    bio: '<p>Cara forecasts river flooding from rainfall and catchment hydrology.</p>',
  },
  {
    first: 'Dan',
    department: 'Medicine',
    topics: ['Cardiology', 'Hypertension'],
    bio: '<p>Dan treats heart failure and high blood pressure in older patients.</p>',
  },
  {
    first: 'Eve',
    department: 'Medicine',
    topics: ['Cardiology'],
    bio: '<p>Eve runs clinical trials of heart failure drugs.</p>',
  },
  {
    first: 'Gina',
    department: 'Law',
    topics: ['Copyright', 'Intellectual property'],
    bio: '<p>Gina teaches copyright law and the licensing of creative works.</p>',
  },
  {
    first: 'Ivy',
    department: 'Engineering',
    topics: ['Flood risk', 'Tsunami', 'Sea level rise'],
    bio: '<p>Ivy maps tsunami inundation and storm surge along coastal cities.</p>',
    visibility: 'private',
  },
  {
    first: 'Jon',
    department: 'Geography',
    topics: ['Flood risk', 'Hydrology', 'Sea level rise'],
    bio: '<p>Jon measures groundwater and flooding of river deltas.</p>',
    visibility: 'unpublished',
  },
  {
    first: 'Kim',
    department: 'Geography',
    topics: ['Hydrology', 'Flood risk', 'Sea level rise'],
    bio: '<p>Kim studies river catchments, rainfall and flood forecasting.</p>',
  },
]

const HIDDEN = ['Ivy', 'Jon']
/** Words only the hidden experts' profiles hold: no reason a read:public caller gets may name them. */
const HIDDEN_WORDS = /tsunami|inundation|groundwater|delta/i

/**
 * The MCP tools for finding experts by meaning (CONTRACT §20), driven by the SDK's client over HTTP: they
 * answer what the routes answer for the same token, narrowed by the same audience, with readable reasons.
 */
describeEachDialect('MCP tools for finding experts by meaning', (ctx: TestContext) => {
  const usernames = new Map<string, string>()
  const user = (first: string) => present(usernames.get(first), first)
  const org = () => ctx.tenant.orgId
  let mcpUrl: URL
  let publicToken = ''
  let readToken = ''
  const clients: Client[] = []
  const connected = new Map<string, Promise<Client>>()

  async function addSection(username: string, section: 'topic' | 'biography', body: Record<string, string>) {
    const response = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${org()}/expert/${username}/${section}`,
      headers: ctx.tenant.auth,
      payload: body,
    })
    assert.equal(response.statusCode, 200, response.body)
  }

  before(async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    mcpUrl = new URL('/mcp', `http://127.0.0.1:${listeningPort(ctx.app.server)}`)
    for (const person of PEOPLE) {
      const username = await createExpert(ctx, ctx.tenant, {
        firstname: person.first,
        lastname: 'Tester',
        job_title: `${person.department} researcher`,
        department: person.department,
      })
      usernames.set(person.first, username)
      expectOk(
        await api(ctx.app, ctx.tenant).put('/v2/organization/{corporation}/expert/{username}', {
          params: { corporation: org(), username },
          body: {
            is_published: person.visibility === 'unpublished' ? 0 : 1,
            is_private: person.visibility === 'private' ? 1 : 0,
          },
        }),
      )
      for (const topic of person.topics) await addSection(username, 'topic', { name: topic })
      await addSection(username, 'biography', { biography: person.bio })
    }
    const { db } = ctx.testDatabase.database
    const assistant = await createClient(db, org(), 'assistant', ctx.clock.now(), ['read:public'])
    publicToken = await scopedToken(ctx.app, assistant)
    const reader = await createClient(db, org(), 'reader', ctx.clock.now(), ['read'])
    readToken = await scopedToken(ctx.app, reader)
  })

  after(async () => {
    await Promise.all(clients.map((client) => client.close()))
  })

  /** One SDK client per token, which has listed the tools: it then checks structuredContent against outputSchema. */
  function clientFor(token: string): Promise<Client> {
    const known = connected.get(token)
    if (known) return known
    const client = new Client({ name: 'expertdir-test', version: '1.0.0' })
    clients.push(client)
    const ready = client
      .connect(
        new StreamableHTTPClientTransport(mcpUrl, {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      )
      .then(async () => {
        await client.listTools()
        return client
      })
    connected.set(token, ready)
    return ready
  }

  async function call(token: string, name: string, args: Record<string, unknown>) {
    const client = await clientFor(token)
    return CallToolResultSchema.parse(await client.callTool({ name, arguments: args }))
  }

  /** The readable summary and the structured experts of a successful call; the JSON block equals the latter. */
  function answer(result: CallToolResult) {
    assert.notEqual(result.isError, true, JSON.stringify(result.content))
    const [summary, json] = result.content
    assert.equal(summary?.type, 'text')
    assert.equal(json?.type, 'text')
    assert.deepEqual(json?.type === 'text' ? JSON.parse(json.text) : undefined, result.structuredContent)
    return {
      summary: summary?.type === 'text' ? summary.text : '',
      experts: parsed(SimilarExperts, result.structuredContent).experts,
    }
  }

  function errorText(result: CallToolResult): string {
    assert.equal(result.isError, true, JSON.stringify(result))
    assert.equal(result.structuredContent, undefined)
    const [first] = result.content
    return first?.type === 'text' ? first.text : ''
  }

  const findForText = async (token: string, text: string, limit?: number) =>
    answer(await call(token, 'find_experts_for_text', { text, ...(limit ? { limit } : {}) }))
  const similar = async (token: string, first: string, limit?: number) =>
    answer(await call(token, 'similar_experts', { username: user(first), ...(limit ? { limit } : {}) }))

  /** The routes' answers for the same token. */
  async function apiMatch(token: string, text: string, limit?: number) {
    return expectOk(
      await api(ctx.app, token).post('/v2/organization/{corporation}/expert/match', {
        params: { corporation: org() },
        body: { text, ...(limit ? { limit } : {}) },
      }),
    ).experts
  }
  async function apiSimilar(token: string, first: string, limit?: number) {
    return expectOk(
      await api(ctx.app, token).get('/v2/organization/{corporation}/expert/{username}/similar', {
        params: { corporation: org(), username: user(first) },
        ...(limit ? { query: { limit } } : {}),
      }),
    ).experts
  }

  const firstNames = (experts: { firstname: string }[]) => experts.map((expert) => expert.firstname)

  test('tools/list offers both tools to a read:public token, with the API’s schemas', async () => {
    const client = await clientFor(publicToken)
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    const find = present(byName.get('find_experts_for_text'))
    const like = present(byName.get('similar_experts'))
    assert.deepEqual(Object.keys(find.inputSchema.properties ?? {}).sort(), ['limit', 'text'])
    assert.deepEqual(find.inputSchema.required, ['text'])
    const text = parsed(Type.Object({ maxLength: Type.Integer() }), find.inputSchema.properties?.text)
    assert.equal(text.maxLength, 20_000)
    assert.deepEqual(Object.keys(like.inputSchema.properties ?? {}).sort(), ['limit', 'username'])
    assert.deepEqual(like.inputSchema.required, ['username'])
    for (const tool of [find, like]) {
      assert.equal(tool.annotations?.readOnlyHint, true)
      assert.equal(tool.inputSchema.additionalProperties, false)
      assert.equal(tool.outputSchema?.title, 'SimilarExperts')
      assert.doesNotMatch(JSON.stringify(tool.inputSchema), /"x-/)
    }
  })

  test('find_experts_for_text: a text finds its expert with reasons, as the route answers', async () => {
    const text = 'Hypertension and heart failure: why does high blood pressure hurt older patients?'
    const { summary, experts } = await findForText(publicToken, text)
    assert.deepEqual(experts, await apiMatch(publicToken, text))
    const [top] = experts
    assert.equal(top?.username, user('Dan'))
    assert.ok(top?.reasons.some((reason) => reason.kind === 'concept' && reason.label === 'Hypertension'))
    assert.ok(top?.reasons.some((reason) => reason.kind === 'term'))
    assert.ok(top && top.score > 0)
    assert.match(summary, /^\d+ experts? for the text, best first:\n1\. Dan Tester \(username /)
    assert.match(summary, /Medicine researcher; score 0\.\d+\n {3}Why: concepts “Hypertension”/)
    assert.match(summary, /words “/)
    assert.match(summary, /get_expert/)
    const limited = await findForText(readToken, 'storm surge and flood risk for coastal cities', 2)
    assert.equal(limited.experts.length, 2)
    assert.deepEqual(
      limited.experts,
      await apiMatch(readToken, 'storm surge and flood risk for coastal cities', 2),
    )
  })

  test('find_experts_for_text: a text nobody covers finds no one, and says so', async () => {
    const { summary, experts } = await findForText(publicToken, 'Quantum chromodynamics of gluons')
    assert.deepEqual(experts, [])
    assert.equal(summary, 'No expert found for the text.')
  })

  test('similar_experts: the route’s experts, scores and reasons; never the expert itself', async () => {
    for (const token of [publicToken, readToken]) {
      const { summary, experts } = await similar(token, 'Ada', 5)
      assert.deepEqual(experts, await apiSimilar(token, 'Ada', 5))
      assert.ok(experts.length > 0)
      assert.ok(!firstNames(experts).includes('Ada'))
      assert.ok(firstNames(experts).includes('Ben') || firstNames(experts).includes('Cara'))
      assert.ok(experts.every((expert) => expert.reasons.length > 0))
      assert.match(summary, new RegExp(`similar to ${user('Ada')}, best first:\\n1\\. `))
    }
  })

  test('read:public never gets a private or unpublished expert, nor a reason drawn from one', async () => {
    for (const first of ['Ada', 'Ben', 'Cara', 'Kim']) {
      const { summary, experts } = await similar(publicToken, first, 50)
      assert.ok(
        !firstNames(experts).some((name) => HIDDEN.includes(name)),
        `${first}: ${firstNames(experts)}`,
      )
      for (const expert of experts)
        for (const reason of expert.reasons) assert.doesNotMatch(reason.label, HIDDEN_WORDS)
      assert.doesNotMatch(summary, /Ivy|Jon|tsunami|groundwater/i)
    }
    const tsunami = 'Tsunami inundation maps along the coast, and groundwater in river deltas'
    const seen = await findForText(publicToken, tsunami, 50)
    assert.ok(!firstNames(seen.experts).some((name) => HIDDEN.includes(name)))
    for (const expert of seen.experts)
      for (const reason of expert.reasons) assert.doesNotMatch(reason.label, HIDDEN_WORDS)
    assert.doesNotMatch(seen.summary, /Ivy|Jon|tsunami|groundwater/i)

    const all = await findForText(readToken, tsunami, 50)
    assert.ok(
      HIDDEN.every((name) => firstNames(all.experts).includes(name)),
      'a read token sees them',
    )
    assert.ok(firstNames((await similar(readToken, 'Ada', 50)).experts).includes('Ivy'))

    for (const first of HIDDEN) {
      assert.equal(
        errorText(await call(publicToken, 'similar_experts', { username: user(first) })),
        `not_found: Expert ${user(first)} was not found.`,
      )
      assert.ok((await similar(readToken, first)).experts.length > 0, `${first} with read`)
    }
  })

  test('bad arguments and unknown experts are tool errors the assistant can act on', async () => {
    const tooLong = errorText(await call(publicToken, 'find_experts_for_text', { text: 'a'.repeat(20_001) }))
    assert.match(tooLong, /^validation_failed: .*\n- text: must be at most 20000 characters long$/)
    assert.match(
      errorText(await call(publicToken, 'find_experts_for_text', { text: '' })),
      /^validation_failed: .*\n- text: /,
    )
    assert.match(
      errorText(await call(publicToken, 'find_experts_for_text', { limit: 5 })),
      /^validation_failed: .*\n- text: /,
    )
    assert.match(
      errorText(await call(publicToken, 'find_experts_for_text', { text: 'flood', limit: 51 })),
      /\n- limit: must be an integer from 1 to 50/,
    )
    assert.match(
      errorText(await call(publicToken, 'similar_experts', { username: user('Ada'), limit: 0 })),
      /\n- limit: must be an integer from 1 to 50/,
    )
    assert.match(
      errorText(await call(publicToken, 'similar_experts', { username: user('Ada'), corporation: 1 })),
      /^validation_failed: /,
    )
    assert.equal(
      errorText(await call(readToken, 'similar_experts', { username: 'nobody-here' })),
      'not_found: Expert nobody-here was not found.',
    )
    assert.match(errorText(await call(publicToken, 'similar_experts', {})), /\n- username: /)
  })

  test('similar_experts follows a renamed expert’s old username, unless the caller may not see the expert', async () => {
    const rename = async (from: string, to: string) => {
      const response = await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}/expert/${from}`,
        headers: ctx.tenant.auth,
        payload: { username: to },
      })
      assert.equal(response.statusCode, 200, response.body)
    }
    for (const first of ['Cara', 'Ivy']) await rename(user(first), `${user(first)}-renamed`)
    try {
      const viaOld = await similar(publicToken, 'Cara')
      const viaNew = answer(
        await call(publicToken, 'similar_experts', { username: `${user('Cara')}-renamed` }),
      ).experts
      assert.ok(viaOld.experts.length > 0)
      assert.deepEqual(viaOld.experts, viaNew)
      assert.match(
        errorText(await call(publicToken, 'similar_experts', { username: user('Ivy') })),
        /^not_found: /,
      )
      assert.ok((await similar(readToken, 'Ivy')).experts.length > 0, 'read follows the rename')
    } finally {
      for (const first of ['Cara', 'Ivy']) await rename(`${user(first)}-renamed`, user(first))
    }
  })
})
