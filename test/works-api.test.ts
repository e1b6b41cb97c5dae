import assert from 'node:assert/strict'
import { test } from 'node:test'
import { openDatabase } from '../src/db/database.js'
import { REFRESH_NOW_PER_HOUR } from '../src/works/refresh-limit.js'
import { createWorksSchedule, REFRESH_INTERVAL_MS } from '../src/works/schedule.js'
import { api, expectError, expectOk } from './helpers/api.js'
import { eventually } from './helpers/eventually.js'
import { createExpert, describeEachDialect, type TestContext } from './helpers/harness.js'
import { personToken } from './helpers/people.js'
import { AuthoredSource, authoredWork } from './helpers/works.js'

/** The works API's refresh now, its limits and refusals, and the schedule across processes (CONTRACT §19). */

const ORCIDS = ['0000-0002-1825-0097', '0000-0001-5109-3700', '0000-0002-1694-233X']
const NOW_ORCID = '0000-0002-1111-1115'
const OWN_RUNS_ORCID = '0000-0001-7713-4216'
const orcid = new AuthoredSource('orcid')

async function expertWith(ctx: TestContext, iD: string) {
  const username = await createExpert(ctx, ctx.tenant)
  expectOk(
    await api(ctx.app, ctx.tenant).put('/v2/organization/{corporation}/expert/{username}', {
      params: { corporation: ctx.tenant.orgId, username },
      body: { orcid: iD },
    }),
  )
  return username
}

describeEachDialect(
  'works API and schedule',
  (ctx) => {
    test('refresh now answers 202 with the run, which the run log shows finished; a fifth within the hour is 429', async () => {
      const username = await expertWith(ctx, NOW_ORCID)
      orcid.works.set(NOW_ORCID, [
        authoredWork('orcid', {
          doi: '10.1000/now',
          orcidPutCode: '1',
          title: 'Now',
          foundBecause: 'orcid_record',
        }),
      ])
      const client = api(ctx.app, ctx.tenant)
      const params = { corporation: ctx.tenant.orgId, username }
      const response = await client.post('/v2/organization/{corporation}/expert/{username}/works/refresh', {
        params,
      })
      assert.equal(response.statusCode, 202, response.body)
      const run = response.json().data
      assert.equal(run.status, 'running')
      assert.equal(run.trigger, 'request')
      const finished = await eventually(
        async () => {
          const { runs } = expectOk(
            await client.get('/v2/organization/{corporation}/imports', {
              params: { corporation: ctx.tenant.orgId },
            }),
          )
          return runs.find((entry) => entry.id === run.id && entry.status === 'finished')
        },
        { what: 'the run finishes', timeoutMs: 10_000 },
      )
      assert.equal(finished.counts.claimed, 1)
      assert.deepEqual(finished.sources, ['orcid'])
      for (let i = 1; i < REFRESH_NOW_PER_HOUR; i++) {
        const again = await client.post('/v2/organization/{corporation}/expert/{username}/works/refresh', {
          params,
        })
        assert.ok([202, 409].includes(again.statusCode), again.body)
        await ctx.app.worksSchedule.stop()
      }
      const limited = await client.post('/v2/organization/{corporation}/expert/{username}/works/refresh', {
        params,
      })
      expectError(limited, 429, 'rate_limited')
      assert.ok(Number(limited.headers['retry-after']) > 0)
    })

    test("a signed-in expert reads the runs of its own refreshes, never another expert's nor the organization's log", async () => {
      const username = await expertWith(ctx, OWN_RUNS_ORCID)
      const neighbour = await expertWith(ctx, '0000-0002-9079-593X')
      orcid.works.set(OWN_RUNS_ORCID, [
        authoredWork('orcid', { doi: '10.1000/own-runs', orcidPutCode: '7', foundBecause: 'orcid_record' }),
      ])
      const person = await personToken(ctx, ctx.tenant.orgId, 'expert', { expert: username })
      const own = api(ctx.app, person.token)
      const params = { corporation: ctx.tenant.orgId, username }
      const started = await own.post('/v2/organization/{corporation}/expert/{username}/works/refresh', {
        params,
      })
      assert.equal(started.statusCode, 202, started.body)
      const run = started.json().data
      await ctx.app.worksSchedule.stop()
      // The neighbour's run, started by an editor, is not the expert's to read.
      const neighbourRun = await api(ctx.app, ctx.tenant).post(
        '/v2/organization/{corporation}/expert/{username}/works/refresh',
        { params: { corporation: ctx.tenant.orgId, username: neighbour } },
      )
      assert.equal(neighbourRun.statusCode, 202, neighbourRun.body)
      await ctx.app.worksSchedule.stop()

      const { runs, next_cursor } = expectOk(
        await own.get('/v2/organization/{corporation}/expert/{username}/works/runs', { params }),
      )
      assert.deepEqual(
        runs.map((entry) => [entry.id, entry.username, entry.status]),
        [[run.id, username, 'finished']],
      )
      assert.equal(runs[0]?.counts.claimed, 1)
      assert.equal(next_cursor, null)
      expectError(
        await own.get('/v2/organization/{corporation}/expert/{username}/works/runs', {
          params: { corporation: ctx.tenant.orgId, username: neighbour },
        }),
        403,
        'forbidden',
      )
      expectError(
        await own.get('/v2/organization/{corporation}/imports', {
          params: { corporation: ctx.tenant.orgId },
          query: { username },
        }),
        403,
        'forbidden',
      )
      // An editor reads any expert's runs there; the runs follow the expert, not a username.
      const editor = api(ctx.app, ctx.tenant)
      const neighbours = expectOk(
        await editor.get('/v2/organization/{corporation}/expert/{username}/works/runs', {
          params: { corporation: ctx.tenant.orgId, username: neighbour },
          query: { page_size: 1 },
        }),
      )
      assert.deepEqual(
        neighbours.runs.map((entry) => entry.username),
        [neighbour],
      )
      expectError(
        await editor.get('/v2/organization/{corporation}/expert/{username}/works/runs', {
          params: { corporation: ctx.other.orgId, username },
        }),
        403,
        'forbidden',
      )
      for (const absent of ['nobody-here', await createExpert(ctx, ctx.other, { lastname: 'Elsewhere' })])
        expectError(
          await editor.send('GET', `/v2/organization/${ctx.tenant.orgId}/expert/${absent}/works/runs`),
          404,
          'not_found',
        )
      expectError(
        await editor.send(
          'GET',
          `/v2/organization/${ctx.tenant.orgId}/expert/${username}/works/runs?username=${neighbour}`,
        ),
        400,
        'validation_failed',
      )
    })

    test("another organization's expert is a 404 for decisions and refresh; bad states and cursors are 400", async () => {
      const foreign = await createExpert(ctx, ctx.other, { lastname: 'Elsewhere' })
      const client = api(ctx.app, ctx.tenant)
      const params = { corporation: ctx.tenant.orgId, username: foreign }
      expectError(
        await client.post('/v2/organization/{corporation}/expert/{username}/works/decisions', {
          params,
          body: { decisions: [{ id: 1, state: 'claimed' }] },
        }),
        404,
        'not_found',
      )
      expectError(
        await client.post('/v2/organization/{corporation}/expert/{username}/works/refresh', { params }),
        404,
        'not_found',
      )
      const own = await createExpert(ctx, ctx.tenant)
      expectError(
        await client.send('GET', `/v2/organization/${ctx.tenant.orgId}/expert/${own}/works?state=maybe`),
        400,
        'validation_failed',
      )
      expectError(
        await client.send('GET', `/v2/organization/${ctx.tenant.orgId}/expert/${own}/works?cursor=abc`),
        400,
        'validation_failed',
      )
      expectError(
        await client.send('POST', `/v2/organization/${ctx.tenant.orgId}/expert/${own}/works/decisions`, {
          decisions: [],
        }),
        400,
        'validation_failed',
      )
    })

    test('two processes running the schedule refresh each expert once, and again only after seven days', async () => {
      const usernames = await Promise.all(ORCIDS.map((iD) => expertWith(ctx, iD)))
      const counting = new AuthoredSource('orcid')
      const open = () => openDatabase(ctx.testDatabase.url)
      const [first, second] = [open(), open()]
      try {
        const schedules = [first, second].map((database) =>
          createWorksSchedule({
            db: database.db,
            dialect: database.dialect,
            sources: [counting],
            now: ctx.clock.now,
          }),
        )
        await Promise.all(schedules.map((schedule) => schedule.runOnce()))
        await Promise.all(schedules.map((schedule) => schedule.runOnce()))
        const asked = counting.asked.map((expert) => expert.orcid)
        for (const iD of ORCIDS) assert.equal(asked.filter((a) => a === iD).length, 1, `${iD} refreshed once`)
        ctx.clock.advance(REFRESH_INTERVAL_MS + 1000)
        await Promise.all(schedules.map((schedule) => schedule.runOnce()))
        for (const iD of ORCIDS)
          assert.equal(
            counting.asked.filter((a) => a.orcid === iD).length,
            2,
            `${iD} refreshed again after a week`,
          )
        const { runs } = expectOk(
          await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/imports', {
            params: { corporation: ctx.tenant.orgId },
            query: { username: usernames[0] ?? '' },
          }),
        )
        assert.equal(runs.filter((run) => run.trigger === 'schedule').length, 2)
      } finally {
        await first.close()
        await second.close()
      }
    })

    test('a refresh whose process died is taken over after its lease, without duplicates', async () => {
      const username = await expertWith(ctx, '0000-0003-1419-2405')
      const source = new AuthoredSource('orcid')
      source.works.set('0000-0003-1419-2405', [
        authoredWork('orcid', {
          doi: '10.1000/crash',
          orcidPutCode: '9',
          title: 'Crash',
          foundBecause: 'orcid_record',
        }),
      ])
      const database = openDatabase(ctx.testDatabase.url)
      try {
        const schedule = createWorksSchedule({
          db: database.db,
          dialect: database.dialect,
          sources: [source],
          now: ctx.clock.now,
        })
        await schedule.runOnce()
        // A process took the expert and died: its lease stands until it lapses.
        await database.db
          .updateTable('work_schedule')
          .set({ due_at: ctx.clock.now(), locked_until: ctx.clock.now() + 60_000, lock_token: 'dead' })
          .execute()
        const asked = source.asked.length
        await schedule.runOnce()
        assert.equal(source.asked.length, asked, 'a leased expert is left alone')
        ctx.clock.advance(60_001)
        await schedule.runOnce()
        assert.ok(source.asked.length > asked, 'taken over after the lease')
        const { works } = expectOk(
          await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/expert/{username}/works', {
            params: { corporation: ctx.tenant.orgId, username },
          }),
        )
        assert.equal(works.length, 1)
      } finally {
        await database.close()
      }
    })
  },
  { workSources: [orcid] },
)
