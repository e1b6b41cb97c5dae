import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { Type } from 'typebox'
import { createClient, type IssuedClient } from '../src/auth/clients.js'
import { parsed, present } from './helpers/checked.js'
import { importDocument } from './helpers/content.js'
import { describeEachDialect, inquiryBody, type TestContext } from './helpers/harness.js'
import { initializeRequest } from './helpers/mcp.js'
import { listeningPort } from './helpers/net.js'
import { scopedToken } from './helpers/oauth.js'

const Named = Type.Object({ username: Type.String() })
const Accounts = Type.Object({ account: Type.Array(Named) })
const Spotlights = Type.Object({ spotlights: Type.Array(Type.Object({ id: Type.Integer() })) })

/** The parts of the bodies the tests read: the API's error envelope, a JSON-RPC reply, metadata documents. */
interface Reply {
  error: { code: string | number; message: string }
  result: { protocolVersion: string }
  scopes_supported: string[]
  token_endpoint: string
  access_token: string
  [member: string]: unknown
}

async function body(response: Response): Promise<Reply> {
  return (await response.json()) as Reply
}

/**
 * The MCP server (CONTRACT §18) driven by the SDK's own client over HTTP on 127.0.0.1: its tools answer
 * what the API answers for the same token, under the same scopes and the same read:public narrowing.
 */
describeEachDialect('MCP server for AI assistants', (ctx: TestContext) => {
  let base: string
  let mcpUrl: URL
  /** read:public inquiries:create: a public assistant's client. */
  let publicClient: IssuedClient
  let publicToken: string
  let readToken: string
  let writeToken: string
  let otherToken: string
  let draftPost: number
  const clients: Client[] = []
  const org = () => ctx.tenant.orgId

  const expert = (key: string, firstname: string, flags: { is_published: number; is_private: number }) => ({
    key,
    firstname,
    lastname: 'Assistant',
    job_title: 'Glaciologist',
    email: `${key}@mcp.example`,
    company: 'Polar Institute',
    location_country: 'NO',
    ...flags,
    sections: { topic: [{ name: 'Sea ice' }], tagline: { tagline: `${firstname} studies ice` } },
  })

  before(async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    base = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    mcpUrl = new URL('/mcp', base)
    const { db } = ctx.testDatabase.database
    publicClient = await createClient(db, org(), 'assistant', ctx.clock.now(), [
      'read:public',
      'inquiries:create',
    ])
    publicToken = await scopedToken(ctx.app, publicClient)
    const reader = await createClient(db, org(), 'reader', ctx.clock.now(), ['read', 'write'])
    readToken = await scopedToken(ctx.app, reader, 'read')
    writeToken = await scopedToken(ctx.app, reader, 'write')
    otherToken = ctx.other.token
    const imported = await importDocument(ctx, org(), {
      experts: [
        expert('shown', 'Solveig', { is_published: 1, is_private: 0 }),
        expert('draft', 'Dagny', { is_published: 0, is_private: 0 }),
        expert('private', 'Pernille', { is_published: 1, is_private: 1 }),
      ],
      spotlights: [
        {
          key: 'post',
          title: 'Melting ice shelves',
          html: '<p>Ice news</p>',
          published: 1,
          experts: ['shown'],
        },
        {
          key: 'draft-post',
          title: 'Draft on ice',
          html: '<p>Not yet</p>',
          published: 0,
          experts: ['shown'],
        },
      ],
      questions: [
        {
          key: 'question',
          question: 'Why does sea ice matter?',
          published: 1,
          answers: [{ key: 'a1', expert: 'shown', answer: '<p>It reflects sunlight.</p>' }],
        },
      ],
    })
    draftPost = present(imported.ids.spotlights[1])
  })

  after(async () => {
    await Promise.all(clients.map((client) => client.close()))
  })

  /** An SDK client connected (initialized) with `token`. */
  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'expertdir-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(mcpUrl, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    })
    await client.connect(transport)
    clients.push(client)
    return client
  }

  const connected = new Map<string, Promise<Client>>()

  /**
   * One client per token for the whole file, which has listed the tools: the SDK's client then checks
   * every structuredContent against the tool's outputSchema.
   */
  function clientFor(token: string): Promise<Client> {
    const known = connected.get(token)
    if (known) return known
    const client = connect(token).then(async (ready) => {
      await ready.listTools()
      return ready
    })
    connected.set(token, client)
    return client
  }

  async function callTool(client: Client, name: string, args: Record<string, unknown>) {
    return CallToolResultSchema.parse(await client.callTool({ name, arguments: args }))
  }

  /** The text of a tool error; fails when the call succeeded. */
  function errorText(result: CallToolResult): string {
    assert.equal(result.isError, true, JSON.stringify(result))
    assert.equal(result.structuredContent, undefined)
    const [first] = result.content
    assert.equal(first?.type, 'text')
    return first?.type === 'text' ? first.text : ''
  }

  /** The structured result of a successful call, checked to equal its JSON text (the last block: a summary may come first). */
  function structured(result: CallToolResult): Record<string, unknown> {
    assert.notEqual(result.isError, true, JSON.stringify(result.content))
    const json = result.content.at(-1)
    assert.equal(json?.type, 'text')
    assert.deepEqual(json?.type === 'text' ? JSON.parse(json.text) : undefined, result.structuredContent)
    return result.structuredContent ?? {}
  }

  /** The API's `data` for a GET with `token`. */
  async function apiData(url: string, token: string) {
    const response = await ctx.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })
    assert.equal(response.statusCode, 200, response.body)
    return response.json().data
  }

  const usernames = (data: Record<string, unknown>) =>
    parsed(Type.Object({ experts: Type.Array(Named) }), data)
      .experts.map((item) => item.username)
      .sort()

  test('initialize: the server names itself and offers tools, without a session', async () => {
    const client = await connect(publicToken)
    assert.equal(client.getServerVersion()?.name, 'expertdir')
    assert.ok(client.getServerCapabilities()?.tools)
    assert.match(client.getInstructions() ?? '', /search_experts/)
    const response = await fetch(mcpUrl, initializeRequest(publicToken, 'raw'))
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
    assert.equal(response.headers.get('mcp-session-id'), null, 'stateless: no session')
    assert.ok(response.headers.get('x-request-id'), 'the API conventions apply')
    const reply = await body(response)
    assert.equal(reply.result.protocolVersion, '2025-06-18')
  })

  test('tools/list: the seven tools, their input schemas the API’s own, with output schemas', async () => {
    const client = await clientFor(publicToken)
    const { tools } = await client.listTools()
    assert.deepEqual(
      tools.map((tool) => tool.name),
      [
        'search_experts',
        'get_expert',
        'search_posts',
        'search_questions',
        'find_experts_for_text',
        'similar_experts',
        'send_inquiry',
      ],
    )
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name)
      assert.equal(tool.outputSchema?.type, 'object', tool.name)
      assert.ok(tool.description && tool.description.length > 40, tool.name)
      assert.doesNotMatch(JSON.stringify(tool.inputSchema), /"x-/, 'our validator’s keywords stay home')
    }
    const search = tools.find((tool) => tool.name === 'search_experts')
    assert.deepEqual(Object.keys(search?.inputSchema.properties ?? {}).sort(), [
      'access',
      'categories',
      'companies',
      'countries',
      'industries',
      'interview_languages',
      'media_available',
      'page_from',
      'page_size',
      'q',
      'searchfield',
      'sort',
      'status',
      'tags',
      'topics',
    ])
    assert.equal(search?.inputSchema.additionalProperties, false)
    assert.equal(search?.annotations?.readOnlyHint, true)
    const send = tools.find((tool) => tool.name === 'send_inquiry')
    const inquiry = parsed(
      Type.Object({ anyOf: Type.Array(Type.Object({ title: Type.String() })) }),
      send?.inputSchema.properties?.inquiry,
    )
    assert.equal(inquiry.anyOf.length, 9, 'one body schema per inquiry kind')
    assert.ok(inquiry.anyOf.some((schema) => schema.title === 'MediaInquiry'))
    assert.equal(send?.annotations?.readOnlyHint, false)
  })

  test('tools/list shows only the tools the token’s scopes allow; a hidden tool called anyway is refused', async () => {
    const reader = await clientFor(readToken)
    const { tools } = await reader.listTools()
    assert.deepEqual(
      tools.map((tool) => tool.name),
      [
        'search_experts',
        'get_expert',
        'search_posts',
        'search_questions',
        'find_experts_for_text',
        'similar_experts',
      ],
    )
    const before = (await apiData(`/v2/organization/${org()}/inquiry`, ctx.tenant.token)).inquiries.length
    const refused = await reader.callTool({
      name: 'send_inquiry',
      arguments: { kind: 'general', inquiry: inquiryBody('general', 'solveig-assistant') },
    })
    assert.match(errorText(CallToolResultSchema.parse(refused)), /^insufficient_scope: .*inquiries:create/)
    const after = (await apiData(`/v2/organization/${org()}/inquiry`, ctx.tenant.token)).inquiries.length
    assert.equal(after, before, 'nothing was stored')
  })

  test('search_experts answers what the API answers for the same token and query', async () => {
    for (const token of [publicToken, readToken]) {
      const client = await clientFor(token)
      const result = structured(
        await callTool(client, 'search_experts', { q: 'glaciologist', topics: ['Sea ice'] }),
      )
      const api = await apiData(`/v2/organization/${org()}/expert?q=glaciologist&topics=Sea%20ice`, token)
      assert.deepEqual(result, api)
    }
  })

  test('read:public narrowing: hidden experts are neither listed nor counted, and asking for them is refused', async () => {
    const client = await clientFor(publicToken)
    const result = structured(await callTool(client, 'search_experts', { q: 'assistant' }))
    assert.deepEqual(usernames(result), ['solveig-assistant'])
    assert.equal(result.total, 1)
    const reader = await clientFor(readToken)
    const all = structured(
      await callTool(reader, 'search_experts', { q: 'assistant', status: 'all', access: 'all' }),
    )
    assert.deepEqual(usernames(all), ['dagny-assistant', 'pernille-assistant', 'solveig-assistant'])
    for (const args of [{ status: 'unpublished' }, { access: 'all' }]) {
      const refused = await callTool(client, 'search_experts', args)
      assert.match(errorText(refused), /^insufficient_scope: .*\bread\b/)
    }
  })

  test('get_expert: the profile the API serves; a hidden expert is not found for read:public but is for read', async () => {
    const client = await clientFor(publicToken)
    const profile = structured(await callTool(client, 'get_expert', { username: 'solveig-assistant' }))
    assert.deepEqual(
      profile,
      await apiData(`/v2/organization/${org()}/expert/solveig-assistant`, publicToken),
    )
    assert.equal(Object.keys(profile).length, 46)
    for (const hidden of ['dagny-assistant', 'pernille-assistant', 'no-such-expert']) {
      const missing = await callTool(client, 'get_expert', { username: hidden })
      assert.match(errorText(missing), /^not_found: Expert .* was not found/)
    }
    const reader = await clientFor(readToken)
    const draft = structured(await callTool(reader, 'get_expert', { username: 'dagny-assistant' }))
    assert.equal(parsed(Accounts, draft).account[0]?.username, 'dagny-assistant')
  })

  test('get_expert under a renamed expert’s old username gives its current profile', async () => {
    const renamed = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${org()}/expert/solveig-assistant`,
      headers: ctx.tenant.auth,
      payload: { username: 'solveig-ice' },
    })
    assert.equal(renamed.statusCode, 200, renamed.body)
    try {
      const client = await clientFor(publicToken)
      const profile = structured(await callTool(client, 'get_expert', { username: 'solveig-assistant' }))
      assert.equal(parsed(Accounts, profile).account[0]?.username, 'solveig-ice')
    } finally {
      await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}/expert/solveig-ice`,
        headers: ctx.tenant.auth,
        payload: { username: 'solveig-assistant' },
      })
    }
  })

  test('search_posts and search_questions answer as the API does; read:public sees no draft post', async () => {
    const client = await clientFor(publicToken)
    const posts = structured(await callTool(client, 'search_posts', { q: 'ice' }))
    assert.deepEqual(posts, await apiData(`/v2/spotlight/${org()}/search?q=ice`, publicToken))
    const ids = parsed(Spotlights, posts).spotlights.map((post) => post.id)
    assert.equal(ids.length, 1)
    assert.ok(!ids.includes(draftPost))
    const questions = structured(await callTool(client, 'search_questions', { q: 'sea ice' }))
    assert.deepEqual(questions, await apiData(`/v2/qanda/${org()}/search?q=sea%20ice`, publicToken))
    assert.equal(questions.total, 1)
    const reader = await clientFor(readToken)
    const drafts = structured(await callTool(reader, 'search_posts', { q: 'ice', status: 'unpublished' }))
    assert.deepEqual(
      parsed(Spotlights, drafts).spotlights.map((post) => post.id),
      [draftPost],
    )
  })

  test('bad arguments are a tool error naming every offending field, as the API’s 400 does', async () => {
    const client = await clientFor(publicToken)
    const text = errorText(
      await callTool(client, 'search_experts', { page_size: 0, topics: 'x', colour: 'red' }),
    )
    assert.match(text, /^validation_failed: /)
    assert.match(text, /- page_size: must be an integer from 1 to 100/)
    assert.match(text, /- topics: /)
    assert.match(text, /- colour: is not a known field/)
    const missing = errorText(await callTool(client, 'get_expert', {}))
    assert.match(missing, /- username: is required/)
  })

  test('send_inquiry stores one inquiry through the durable path; a retry with its key returns the first id', async () => {
    const client = await clientFor(publicToken)
    const args = {
      kind: 'media',
      inquiry: inquiryBody('media', 'solveig-assistant', { message: 'Interview about sea ice?' }),
      idempotency_key: `mcp-${ctx.dialect}-retry`,
    }
    const first = structured(await callTool(client, 'send_inquiry', args))
    assert.equal(typeof first.id, 'number')
    assert.equal(first.replayed, false)
    const again = structured(await callTool(client, 'send_inquiry', args))
    assert.deepEqual(again, { id: first.id, replayed: true })
    const inbox = await apiData(
      `/v2/organization/${org()}/inquiry?username=solveig-assistant`,
      ctx.tenant.token,
    )
    const stored = inbox.inquiries.filter((item: { id: number }) => item.id === first.id)
    assert.equal(stored.length, 1)
    assert.equal(stored[0].kind, 'media')
    assert.equal(stored[0].fields.message, 'Interview about sea ice?')
    assert.equal(
      inbox.inquiries.filter(
        (item: { fields: { message: string } }) => item.fields.message === 'Interview about sea ice?',
      ).length,
      1,
      'the retry stored nothing',
    )
    const conflict = await callTool(client, 'send_inquiry', {
      ...args,
      inquiry: { ...args.inquiry, message: 'Another message' },
    })
    assert.match(errorText(conflict), /^conflict: /)
  })

  test('send_inquiry checks the inquiry against its kind’s schema and the expert against the organization', async () => {
    const client = await clientFor(publicToken)
    const invalid = errorText(
      await callTool(client, 'send_inquiry', {
        kind: 'media',
        inquiry: {
          ...inquiryBody('media', 'solveig-assistant'),
          email: 'not-an-address',
          media_type: 'blog',
        },
      }),
    )
    assert.match(invalid, /- inquiry\.email: must be a valid email address/)
    assert.match(invalid, /- inquiry\.media_type: must be one of: print, online, tv, radio/)
    const unknownKind = errorText(await callTool(client, 'send_inquiry', { kind: 'fan', inquiry: {} }))
    assert.match(unknownKind, /- kind: must be one of: general, /)
    const stranger = errorText(
      await callTool(client, 'send_inquiry', {
        kind: 'general',
        inquiry: inquiryBody('general', 'no-such-expert'),
      }),
    )
    assert.match(stranger, /^not_found: Expert no-such-expert was not found/)
  })

  test('the organization is the token’s: another organization’s token finds none of ours', async () => {
    const client = await clientFor(otherToken)
    const result = structured(await callTool(client, 'search_experts', { q: 'assistant', status: 'all' }))
    assert.equal(result.total, 0)
    const missing = await callTool(client, 'get_expert', { username: 'solveig-assistant' })
    assert.match(errorText(missing), /^not_found: /)
  })

  test('without a token: 401 whose challenge names the RFC 9728 metadata, which names this server’s token endpoint', async () => {
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    assert.equal(response.status, 401)
    assert.equal((await body(response)).error.code, 'unauthorized')
    const metadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`
    assert.equal(
      response.headers.get('www-authenticate'),
      `Bearer realm="expertdir", resource_metadata="${metadataUrl}"`,
    )
    const metadata = await body(await fetch(metadataUrl))
    assert.deepEqual(metadata, {
      resource: `${base}/mcp`,
      authorization_servers: [base],
      scopes_supported: ['read', 'read:public', 'inquiries:create'],
      bearer_methods_supported: ['header'],
      resource_name: 'Expert directory MCP server',
    })
    const service = await body(await fetch(`${base}/.well-known/oauth-protected-resource`))
    assert.equal(service.resource, base)
    assert.ok(service.scopes_supported.includes('write'))
    const server = await body(await fetch(`${base}/.well-known/oauth-authorization-server`))
    assert.equal(server.issuer, base)
    assert.equal(server.token_endpoint, `${base}/v2/oauth/token`)

    const invalid = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' },
      body: '{}',
    })
    assert.equal(invalid.status, 401)
    assert.equal(
      invalid.headers.get('www-authenticate'),
      `Bearer realm="expertdir", error="invalid_token", resource_metadata="${metadataUrl}"`,
    )
    const anonymous = new Client({ name: 'anonymous', version: '1.0.0' })
    await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(mcpUrl)))
  })

  test('an expired token and the token of a revoked client are 401 invalid_token', async () => {
    const { db } = ctx.testDatabase.database
    const doomed = await createClient(db, org(), 'to revoke', ctx.clock.now(), ['read:public'])
    const revokedToken = await scopedToken(ctx.app, doomed)
    await db
      .updateTable('clients')
      .set({ revoked_at: ctx.clock.now() })
      .where('client_id', '=', doomed.client_id)
      .execute()
    const list = (token: string) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
    const revoked = await list(revokedToken)
    assert.equal(revoked.status, 401)
    assert.equal((await body(revoked)).error.code, 'invalid_token')
    ctx.clock.advance(31 * 24 * 3600 * 1000)
    try {
      const expired = await list(publicToken)
      assert.equal(expired.status, 401)
      assert.match(
        expired.headers.get('www-authenticate') ?? '',
        /error="invalid_token", resource_metadata="/,
      )
    } finally {
      ctx.clock.advance(-31 * 24 * 3600 * 1000)
    }
  })

  test('from the 401 alone, the SDK’s discovery finds the metadata, whose authorization server issues a token that works', async () => {
    const challenge = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(challenge)
    assert.ok(resourceMetadataUrl)
    const resource = await discoverOAuthProtectedResourceMetadata(mcpUrl, { resourceMetadataUrl })
    const [issuer] = resource.authorization_servers ?? []
    assert.equal(issuer, base)
    const server = await body(await fetch(`${issuer}/.well-known/oauth-authorization-server`))
    const issued = await fetch(server.token_endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${publicClient.client_id}:${publicClient.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: resource.scopes_supported?.filter((scope) => scope !== 'read').join(' ') ?? '',
      }),
    })
    assert.equal(issued.status, 200)
    const { access_token: token, scope } = await body(issued)
    assert.equal(scope, 'read:public inquiries:create')
    const client = await connect(token)
    await client.listTools()
    const result = structured(await callTool(client, 'search_experts', { q: 'assistant' }))
    assert.deepEqual(usernames(result), ['solveig-assistant'])
  })

  test('a token with no scope any tool needs is 403 insufficient_scope naming the scopes to ask for', async () => {
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${writeToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    assert.equal(response.status, 403)
    assert.equal((await body(response)).error.code, 'insufficient_scope')
    assert.equal(
      response.headers.get('www-authenticate'),
      `Bearer realm="expertdir", error="insufficient_scope", scope="read:public inquiries:create", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    )
  })

  test('malformed requests get JSON-RPC protocol errors or the API’s 4xx, never a 500', async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${publicToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      })
    for (const text of ['{"jsonrpc": "2.0", "id": 1,', '', '{"__proto__": {"x": 1}}']) {
      const response = await post(text)
      assert.equal(response.status, 400, text)
      assert.deepEqual(await body(response), {
        jsonrpc: '2.0',
        error: { code: -32700, message: 'Parse error: the body is not a JSON object in UTF-8.' },
        id: null,
      })
    }
    const notJsonRpc = await post('{"hello": "world"}')
    assert.equal(notJsonRpc.status, 400)
    assert.equal((await body(notJsonRpc)).error.code, -32700)
    const unknownMethod = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'resources/list' }))
    assert.equal(unknownMethod.status, 200)
    assert.deepEqual((await body(unknownMethod)).error.code, -32601)
    const unknownTool = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'delete_everything' } }),
    )
    assert.equal((await body(unknownTool)).error.code, -32602)
    // The SDK checks a request's params before any handler runs, and answers -32603 for them.
    const badParams = await post(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: {} }))
    assert.equal(badParams.status, 200)
    assert.equal((await body(badParams)).error.code, -32603)
    const notification = await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))
    assert.equal(notification.status, 202)
    const form = await post('a=1', { 'content-type': 'application/x-www-form-urlencoded' })
    assert.equal(form.status, 415)
    const noAccept = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), {
      accept: 'text/html',
    })
    assert.equal(noAccept.status, 406)
    const tooLarge = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', pad: 'x'.repeat(1_100_000) }),
    )
    assert.equal(tooLarge.status, 413)
  })

  test('a JSON-RPC batch is refused whole with -32600: a hundred send_inquiry calls store nothing and cost one request', async () => {
    const message = `Batched inquiry ${ctx.dialect}`
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'send_inquiry',
        arguments: { kind: 'media', inquiry: inquiryBody('media', 'solveig-assistant', { message }) },
      },
    })
    const post = (payload: unknown) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${publicToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(payload),
      })
    const single = await post(call(0))
    const remaining = Number(single.headers.get('ratelimit-remaining'))
    for (const batch of [Array.from({ length: 100 }, (_, i) => call(i + 1)), [call(101)], []]) {
      const response = await post(batch)
      assert.equal(response.status, 400, `a batch of ${batch.length}`)
      assert.deepEqual(await body(response), {
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message: 'Invalid Request: JSON-RPC batches are not accepted; send one message per request.',
        },
        id: null,
      })
    }
    const after = await post({ jsonrpc: '2.0', id: 102, method: 'ping' })
    assert.equal(Number(after.headers.get('ratelimit-remaining')), remaining - 4, 'one request each')
    const inbox = await apiData(
      `/v2/organization/${org()}/inquiry?username=solveig-assistant&page_size=100`,
      ctx.tenant.token,
    )
    const stored = inbox.inquiries.filter(
      (item: { fields: { message: string } }) => item.fields.message === message,
    )
    assert.equal(stored.length, 1, 'only the single call stored an inquiry')
  })

  test('GET and DELETE /mcp are 405 (no server stream, no sessions); a foreign web page is 403', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(mcpUrl, {
        method,
        headers: { authorization: `Bearer ${publicToken}`, accept: 'text/event-stream' },
      })
      assert.equal(response.status, 405, method)
      assert.equal(response.headers.get('allow'), 'POST')
    }
    const foreign = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${publicToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'https://evil.example',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    })
    assert.equal(foreign.status, 403)
    assert.equal((await body(foreign)).error.code, 'forbidden')
  })

  test('calls count against the token’s API rate limit, with its headers', async () => {
    const ping = () =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${readToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      })
    const first = await ping()
    assert.equal(first.headers.get('ratelimit-limit'), String(ctx.config.rateLimitApi))
    const remaining = Number(first.headers.get('ratelimit-remaining'))
    await apiData(`/v2/organization/${org()}/expert`, readToken)
    const third = await ping()
    assert.equal(Number(third.headers.get('ratelimit-remaining')), remaining - 2, 'one budget with the API')
  })
})
