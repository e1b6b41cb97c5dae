import assert from 'node:assert/strict'
import type { LookupAddress } from 'node:dns'
import { createServer, type Server } from 'node:net'
import { after, before, test } from 'node:test'
import { cliWriteContext } from '../src/audit/write-context.js'
import { loadConfig } from '../src/config.js'
import { createOutbox, type Outbox, type OutboxOptions } from '../src/delivery/outbox.js'
import { saveWebhook } from '../src/delivery/repository.js'
import { setWebhook } from '../src/delivery/settings.js'
import { generateWebhookSecret } from '../src/delivery/webhook.js'
import { type Resolver, webhookNetwork } from '../src/delivery/webhook-network.js'
import { ApiError } from '../src/errors.js'
import { idIn } from './helpers/checked.js'
import { createExpert, describeEachDialect, envelope, inquiryBody } from './helpers/harness.js'
import { WebhookReceiver } from './helpers/receivers.js'

/**
 * Where a webhook may point (docs/webhooks.md): with the defaults, nothing but public addresses, in
 * every spelling of a loopback, private, link-local or otherwise non-public address, at the settings
 * write and at delivery; what the operator allows (EXPERTDIR_WEBHOOK_ALLOW_PRIVATE, ..._NETWORKS)
 * is reached, at the address that was checked.
 */

/** Each target (`PORT` becomes a port where a receiver listens) and the kind of address it is. */
const TARGETS: [url: string, refusal: string][] = [
  ['http://127.0.0.1:PORT/hook', 'the host is a loopback address'],
  ['http://127.1:PORT/hook', 'the host is a loopback address'],
  ['http://2130706433:PORT/hook', 'the host is a loopback address'],
  ['http://0x7f000001:PORT/hook', 'the host is a loopback address'],
  ['http://0177.0.0.1:PORT/hook', 'the host is a loopback address'],
  ['http://127.0.0.1.:PORT/hook', 'the host is a loopback address'],
  ['https://127.254.1.2:PORT/hook', 'the host is a loopback address'],
  ['http://localhost:PORT/hook', 'the host is a loopback name'],
  ['http://localhost.:PORT/hook', 'the host is a loopback name'],
  ['http://LOCALHOST:PORT/hook', 'the host is a loopback name'],
  ['http://hooks.localhost:PORT/hook', 'the host is a loopback name'],
  ['http://[::1]:PORT/hook', 'the host is a loopback address'],
  ['http://[0:0:0:0:0:0:0:1]:PORT/hook', 'the host is a loopback address'],
  ['http://[::ffff:127.0.0.1]:PORT/hook', 'the host is a loopback address'],
  ['http://[::ffff:7f00:1]:PORT/hook', 'the host is a loopback address'],
  ['http://[::127.0.0.1]:PORT/hook', 'the host is a loopback address'],
  ['http://[::ffff:0:127.0.0.1]:PORT/hook', 'the host is a loopback address'],
  ['http://[64:ff9b::127.0.0.1]:PORT/hook', 'the host is a loopback address'],
  ['http://[2002:7f00:1::1]:PORT/hook', 'the host is a loopback address'],
  ['http://0.0.0.0:PORT/hook', 'the host is an unspecified address'],
  ['http://0:PORT/hook', 'the host is an unspecified address'],
  ['http://[::]:PORT/hook', 'the host is an unspecified address'],
  ['http://169.254.169.254/latest/meta-data/', 'the host is a link-local address'],
  ['http://[::ffff:169.254.169.254]/latest/meta-data/', 'the host is a link-local address'],
  ['http://[fe80::1]:PORT/hook', 'the host is a link-local address'],
  ['http://10.0.0.1:PORT/hook', 'the host is a private address'],
  ['http://172.16.0.1:PORT/hook', 'the host is a private address'],
  ['http://172.31.255.254:PORT/hook', 'the host is a private address'],
  ['http://192.168.1.1:PORT/hook', 'the host is a private address'],
  ['http://[::ffff:10.1.2.3]:PORT/hook', 'the host is a private address'],
  ['http://100.64.0.1:PORT/hook', 'the host is a carrier-grade NAT address'],
  ['http://[fc00::1]:PORT/hook', 'the host is a unique-local address'],
  ['http://[fd12:3456::1]:PORT/hook', 'the host is a unique-local address'],
  ['http://224.0.0.1:PORT/hook', 'the host is a multicast address'],
  ['http://[ff02::1]:PORT/hook', 'the host is a multicast address'],
  ['http://255.255.255.255:PORT/hook', 'the host is a reserved address'],
]

const WRITE_MESSAGE = (refusal: string) =>
  `must point to a public address: ${refusal} (the operator may allow private networks with ` +
  'EXPERTDIR_WEBHOOK_ALLOW_PRIVATE or EXPERTDIR_WEBHOOK_ALLOW_NETWORKS)'

/** A resolver that answers from a table, as a DNS server controlled by whoever set the webhook would. */
function resolver(answers: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = []
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname)
    const addresses = answers[hostname]
    if (!addresses) throw Object.assign(new Error(`no ${hostname}`), { code: 'ENOTFOUND' })
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
  return Object.assign(resolve, { calls })
}

describeEachDialect('webhook targets: only public addresses unless the operator allows more', (ctx) => {
  const receiver = new WebhookReceiver()
  const outboxes: Outbox[] = []
  const at = (url: string) => url.replace('PORT', String(receiver.port))

  before(() => receiver.start())
  after(async () => {
    await Promise.all(outboxes.map((outbox) => outbox.stop()))
    await receiver.stop()
  })

  function outbox(config: Partial<OutboxOptions['config']> = {}, resolve?: Resolver) {
    const created = createOutbox({
      database: ctx.testDatabase.database,
      now: ctx.clock.now,
      config: {
        smtpUrl: '',
        mailFrom: 'Expert Directory <no-reply@expertdir.test>',
        deliveryMaxAttempts: 5,
        deliveryBackoffMs: 1000,
        deliveryPollMs: 1000,
        ...config,
      },
      ...(resolve ? { resolve } : {}),
    })
    outboxes.push(created)
    return created
  }

  /** A tenant whose stored webhook is `url` (written as the settings write would not, or before a DNS change). */
  async function tenantWithStoredWebhook(url: string) {
    const tenant = await ctx.addTenant('Webhook Targets')
    const username = await createExpert(ctx, tenant, { email: `expert.${tenant.orgId}@uni.example` })
    await saveWebhook(
      ctx.testDatabase.database.db,
      tenant.orgId,
      url,
      generateWebhookSecret(),
      ctx.clock.now(),
    )
    return { tenant, username }
  }

  async function sendInquiry(tenant: { orgId: number; auth: Record<string, string> }, username: string) {
    const response = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${tenant.orgId}/inquiry/media`,
      headers: tenant.auth,
      payload: inquiryBody('media', username),
    })
    assert.equal(response.statusCode, 200, response.body)
    return idIn(response)
  }

  async function webhookDelivery(inquiryId: number) {
    return ctx.testDatabase.database.db
      .selectFrom('inquiry_deliveries')
      .selectAll()
      .where('inquiry_id', '=', inquiryId)
      .where('channel', '=', 'webhook')
      .executeTakeFirstOrThrow()
  }

  test(`PUT .../webhook refuses each of ${TARGETS.length} non-public targets with a 400 naming the rule; nothing is stored`, async () => {
    const tenant = await ctx.addTenant('Webhook Writes')
    for (const [target, refusal] of TARGETS) {
      const response = await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${tenant.orgId}/webhook`,
        headers: tenant.auth,
        payload: { url: at(target) },
      })
      assert.equal(response.statusCode, 400, `${target}: ${response.body}`)
      const error = envelope(response).error
      assert.equal(error?.code, 'validation_failed')
      assert.deepEqual(error?.details, [{ field: 'url', message: WRITE_MESSAGE(refusal) }], target)
    }
    const shown = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${tenant.orgId}/webhook`,
      headers: tenant.auth,
    })
    assert.equal(envelope(shown).data?.configured, false)
  })

  test('a stored non-public target is refused at delivery: the test event and the outbox reach no receiver', async () => {
    const before = receiver.requests.length
    const { tenant, username } = await tenantWithStoredWebhook(receiver.url)
    const store = (url: string) =>
      saveWebhook(ctx.testDatabase.database.db, tenant.orgId, url, generateWebhookSecret(), ctx.clock.now())
    for (const [target, refusal] of TARGETS) {
      await store(at(target))
      const response = await ctx.inject({
        method: 'POST',
        url: `/v2/organization/${tenant.orgId}/webhook/test`,
        headers: tenant.auth,
      })
      assert.equal(response.statusCode, 200, response.body)
      assert.deepEqual(
        envelope(response).data,
        { delivered: false, error: `webhook refused: ${refusal}` },
        target,
      )
    }
    const worker = outbox()
    for (const target of [
      'http://127.1:PORT/hook',
      'http://localhost:PORT/hook',
      'http://[::ffff:7f00:1]:PORT/',
    ]) {
      await store(at(target))
      const id = await sendInquiry(tenant, username)
      await worker.processOnce()
      const row = await webhookDelivery(id)
      assert.equal(row.status, 'pending', target)
      assert.match(row.last_error ?? '', /^webhook refused: the host is a loopback (address|name)$/, target)
    }
    assert.equal(receiver.requests.length, before, 'no request reached the receiver on 127.0.0.1')
  })

  test('a name that resolves to a refused address is refused at the write and where the delivery connects (no rebinding)', async () => {
    const { db } = ctx.testDatabase.database
    const tenant = await ctx.addTenant('Rebinding')
    const username = await createExpert(ctx, tenant, { email: `expert.${tenant.orgId}@uni.example` })
    const url = `http://hooks.example.test:${receiver.port}/hook`
    const write = (answers: Record<string, string[]>) =>
      setWebhook(
        cliWriteContext(db, tenant.orgId, 'webhook set', ctx.clock.now()),
        { url },
        webhookNetwork({}, resolver(answers)),
      )

    for (const addresses of [['10.0.0.5'], ['93.184.215.14', '127.0.0.1'], ['fd00::5']]) {
      await assert.rejects(
        write({ 'hooks.example.test': addresses }),
        (error) =>
          error instanceof ApiError &&
          error.code === 'validation_failed' &&
          /^must point to a public address: the host resolves to a (private|loopback|unique-local) address/.test(
            error.details?.[0]?.message ?? '',
          ),
        addresses.join(', '),
      )
    }
    // Public when the settings were written; loopback when the delivery connects.
    await write({ 'hooks.example.test': ['93.184.215.14'] })
    const before = receiver.requests.length
    const rebound = resolver({ 'hooks.example.test': ['127.0.0.1'] })
    const id = await sendInquiry(tenant, username)
    await outbox({}, rebound).processOnce()
    const row = await webhookDelivery(id)
    assert.equal(row.last_error, 'webhook refused: the host resolves to a loopback address')
    assert.deepEqual(rebound.calls, ['hooks.example.test'], 'resolved once, where the connection is made')
    assert.equal(receiver.requests.length, before)
  })

  test('a range the operator allows is reached, at the address that was checked; the rest stays refused', async () => {
    const tenant = await ctx.addTenant('Allowed Range')
    const username = await createExpert(ctx, tenant, { email: `expert.${tenant.orgId}@uni.example` })
    // A name no DNS knows: only the checked answer of the policy's lookup can take the connection there.
    const url = `http://hooks.example.test:${receiver.port}/hook`
    await saveWebhook(
      ctx.testDatabase.database.db,
      tenant.orgId,
      url,
      generateWebhookSecret(),
      ctx.clock.now(),
    )
    const answers = resolver({ 'hooks.example.test': ['127.0.0.1'] })
    const worker = outbox({ webhookAllowNetworks: ['127.0.0.0/8'] }, answers)
    const before = receiver.delivered.length
    const id = await sendInquiry(tenant, username)
    await worker.processOnce()
    assert.equal((await webhookDelivery(id)).status, 'delivered')
    assert.equal(receiver.delivered.length, before + 1)
    assert.equal(receiver.delivered.at(-1)?.headers.host, `hooks.example.test:${receiver.port}`)

    const network = webhookNetwork({ webhookAllowNetworks: ['127.0.0.0/8'] })
    assert.equal(network.refusal('127.0.0.1'), undefined)
    assert.equal(network.refusal('::ffff:127.0.0.1'), undefined)
    assert.equal(network.refusal('::1'), 'loopback')
    assert.equal(network.refusal('10.0.0.1'), 'private')
    assert.equal(network.refusal('93.184.215.14'), undefined)
  })

  test('delivery failures are reported in our words, never the peer’s', async () => {
    const banner = 'SSH-2.0-OpenSSH_9.6 internal-build-host\r\n'
    const servers: Server[] = []
    const listen = async (onConnection: (socket: import('node:net').Socket) => void) => {
      const server = createServer(onConnection)
      servers.push(server)
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const address = server.address()
      return typeof address === 'object' && address ? address.port : 0
    }
    try {
      const sshPort = await listen((socket) => socket.end(banner))
      const httpPort = await listen((socket) =>
        socket.once('data', () =>
          socket.end(
            'HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: 26\r\n\r\nupstream db-7 unreachable!',
          ),
        ),
      )
      const cases: [url: string, error: string][] = [
        [`http://127.0.0.1:${sshPort}/`, 'webhook request failed: invalid HTTP response'],
        [`http://127.0.0.1:${httpPort}/`, 'webhook answered HTTP 502'],
        [`https://127.0.0.1:${httpPort}/`, 'webhook request failed: TLS handshake failed'],
        ['http://hooks.invalid/', 'webhook request failed: host not found'],
      ]
      const worker = outbox({ webhookAllowPrivate: true })
      const { tenant, username } = await tenantWithStoredWebhook(receiver.url)
      for (const [url, error] of cases) {
        await saveWebhook(
          ctx.testDatabase.database.db,
          tenant.orgId,
          url,
          generateWebhookSecret(),
          ctx.clock.now(),
        )
        const id = await sendInquiry(tenant, username)
        await worker.processOnce()
        assert.equal((await webhookDelivery(id)).last_error, error, url)
      }
    } finally {
      for (const server of servers) server.close()
    }
  })
})

test('EXPERTDIR_WEBHOOK_ALLOW_NETWORKS takes comma-separated ranges and refuses anything else by name', () => {
  assert.equal(loadConfig({}, {}).webhookAllowPrivate, false)
  assert.equal(loadConfig({}, { EXPERTDIR_WEBHOOK_ALLOW_PRIVATE: '1' }).webhookAllowPrivate, true)
  assert.deepEqual(
    loadConfig({}, { EXPERTDIR_WEBHOOK_ALLOW_NETWORKS: '10.20.0.0/16, fd00:1::/64' }).webhookAllowNetworks,
    ['10.20.0.0/16', 'fd00:1::/64'],
  )
  for (const value of ['10.0.0.0/33', '999.1.1.1/8', 'intranet', '10.0.0.1', 'fd00::/129'])
    assert.throws(
      () => loadConfig({}, { EXPERTDIR_WEBHOOK_ALLOW_NETWORKS: value }),
      /EXPERTDIR_WEBHOOK_ALLOW_NETWORKS/,
      value,
    )
})
