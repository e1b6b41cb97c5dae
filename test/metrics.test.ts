import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createOutbox } from '../src/delivery/outbox.js'
import { createMetrics } from '../src/system/metrics.js'
import { createTestDatabase } from './helpers/databases.js'
import { createExpert, describeEachDialect, envelope } from './helpers/harness.js'

/** The value of one sample line (`name{labels} value`) of a Prometheus text scrape, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue
    const inside = /\{(.*)\}/.exec(line)?.[1] ?? ''
    if (Object.entries(labels).every(([key, value]) => inside.includes(`${key}="${value}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return undefined
}

test('GET /metrics is off unless EXPERTDIR_METRICS=1', async () => {
  assert.equal(loadConfig({}, { EXPERTDIR_METRICS: '1' }).metrics, true)
  const testDatabase = await createTestDatabase('sqlite')
  const app = await buildApp({ config: loadConfig({}, {}), database: testDatabase.database })
  try {
    const response = await app.inject({ method: 'GET', url: '/metrics' })
    assert.equal(response.statusCode, 404)
  } finally {
    await app.close()
    await testDatabase.drop()
  }
})

describeEachDialect(
  'GET /metrics',
  (ctx) => {
    test('counts requests and times them by route template and status, without a token', async () => {
      const username = await createExpert(ctx, ctx.tenant)
      const url = `/v2/organization/${ctx.tenant.orgId}/expert/${username}`
      for (let i = 0; i < 3; i++) {
        const response = await ctx.inject({ method: 'GET', url, headers: ctx.tenant.auth })
        assert.equal(response.statusCode, 200, response.body)
      }
      await ctx.inject({ method: 'GET', url })
      await ctx.inject({ method: 'GET', url: '/no/such/path' })

      const response = await ctx.inject({ method: 'GET', url: '/metrics' })
      assert.equal(response.statusCode, 200)
      assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/)
      const text = response.body
      const route = '/v2/organization/:corporation/expert/:username'
      assert.equal(sample(text, 'expertdir_http_requests_total', { route, status: '200', method: 'GET' }), 3)
      assert.equal(sample(text, 'expertdir_http_requests_total', { route, status: '401' }), 1)
      assert.equal(sample(text, 'expertdir_http_requests_total', { route: 'unmatched', status: '404' }), 1)
      assert.equal(sample(text, 'expertdir_http_request_duration_seconds_count', { route, status: '200' }), 3)
      assert.equal(
        sample(text, 'expertdir_http_request_duration_seconds_bucket', { route, status: '200', le: '+Inf' }),
        3,
      )
      assert.ok(!text.includes(username), 'no URL (and so no username) appears as a label')
      assert.ok(sample(text, 'process_cpu_user_seconds_total') !== undefined, 'default process metrics')
      if (ctx.dialect === 'postgres') {
        assert.ok((sample(text, 'expertdir_db_pool_connections') ?? 0) >= 1)
        assert.equal(sample(text, 'expertdir_db_pool_waiting'), 0)
      } else {
        assert.equal(sample(text, 'expertdir_db_pool_connections'), undefined, 'SQLite has no pool')
      }
    })

    test('the process running the outbox reports its depth and the delivery outcomes', async () => {
      const metrics = createMetrics({ database: ctx.testDatabase.database, http: false, outbox: true })
      const outbox = createOutbox({
        database: ctx.testDatabase.database,
        now: ctx.clock.now,
        config: {
          smtpUrl: '',
          mailFrom: 'test@localhost',
          deliveryMaxAttempts: 3,
          deliveryBackoffMs: 1000,
          deliveryPollMs: 1000,
        },
        onRun: metrics.recordOutboxRun,
      })
      const username = await createExpert(ctx, ctx.tenant)
      const sent = await ctx.inject({
        method: 'POST',
        url: `/v2/organization/${ctx.tenant.orgId}/inquiry/donor`,
        headers: ctx.tenant.auth,
        payload: {
          firstname: 'Ada',
          lastname: 'Lovelace',
          email: 'ada@example.org',
          message: 'We would like to fund your research.',
          username,
          donor_type: 'ngo',
          donor_focus: 'endowments',
        },
      })
      assert.equal(sent.statusCode, 200, sent.body)
      assert.ok(envelope(sent).data)

      const before = await metrics.registry.metrics()
      const pending = sample(before, 'expertdir_outbox_pending') ?? 0
      assert.ok(pending >= 1, before)
      assert.equal(sample(before, 'expertdir_outbox_deliveries_total', { outcome: 'skipped' }), 0)

      const run = await outbox.processOnce()
      await outbox.stop()
      const after = await metrics.registry.metrics()
      assert.equal(sample(after, 'expertdir_outbox_pending'), pending - run.claimed)
      // Neither SMTP nor a webhook is configured: every claimed delivery is skipped.
      assert.equal(sample(after, 'expertdir_outbox_deliveries_total', { outcome: 'skipped' }), run.skipped)
      assert.ok(run.skipped >= 1)
      assert.equal(sample(after, 'expertdir_outbox_deliveries_total', { outcome: 'delivered' }), 0)
    })
  },
  { config: { metrics: true } },
)
