import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cliWriteContext } from '../src/audit/write-context.js'
import { UsernameAssigner } from '../src/experts/username.js'
import { importContent } from '../src/import/index.js'
import { api, expectError, expectOk } from './helpers/api.js'
import { contentRowCounts, queryCounter } from './helpers/content.js'
import { describeEachDialect } from './helpers/harness.js'
import { scopedToken } from './helpers/oauth.js'
import { personToken } from './helpers/people.js'

const HEADER = 'Employee ID,First name,Surname,Job title,E-mail,Company,Department,Topics'

/** A CSV of `count` people; `bad` rows (0-based) get an empty surname, a bad email and a missing job title. */
function peopleCsv(count: number, prefix: string, bad: number[] = []): string {
  const rows = Array.from({ length: count }, (_, i) => {
    const n = i + 1
    const surname = bad[0] === i ? '' : `Person${n}`
    const email = bad[1] === i ? 'not-an-email' : `${prefix}${n}@org.example`
    const title = bad[2] === i ? '' : 'Researcher'
    return `${prefix}-${n},Ada,${surname},${title},${email},Org,"Physics, applied",Energy; Climate`
  })
  return `${HEADER}\n${rows.join('\n')}\n`
}

describeEachDialect('CSV import of people', (ctx) => {
  const owner = () => api(ctx.app, ctx.tenant)
  const url = '/v2/organization/{corporation}/experts/import' as const
  const params = () => ({ corporation: ctx.tenant.orgId })

  test('a file with 3 bad rows: all three reported by row and column, nothing written', async () => {
    const before = await contentRowCounts(ctx)
    const csv = peopleCsv(40, 'bad', [4, 17, 31])
    const preview = expectOk(await owner().post(url, { params: params(), body: { csv, dry_run: true } }))
    assert.equal(preview.rows, 40)
    assert.equal(preview.experts, null)
    assert.deepEqual(
      preview.columns.map((c) => c.field),
      ['key', 'firstname', 'lastname', 'job_title', 'email', 'company', 'department', 'topics'],
    )
    assert.deepEqual(preview.preview[0]?.cells.slice(0, 3), ['bad-1', 'Ada', 'Person1'])
    assert.equal(preview.preview[0]?.row, 2)
    const reported = preview.problems.map((p) => [p.row, p.column])
    assert.deepEqual(reported, [
      [6, 'Surname'],
      [19, 'E-mail'],
      [33, 'Job title'],
    ])
    const refused = expectError(
      await owner().post(url, { params: params(), body: { csv } }),
      400,
      'validation_failed',
    )
    assert.deepEqual(
      refused.details?.map((d) => [d.row, d.field]),
      [
        [6, 'Surname'],
        [19, 'E-mail'],
        [33, 'Job title'],
      ],
    )
    assert.deepEqual(await contentRowCounts(ctx), before)
  })

  test('the fixed file writes every row; a re-import changes nothing; a changed row is updated by key', async () => {
    const csv = peopleCsv(40, 'ok')
    const dry = expectOk(await owner().post(url, { params: params(), body: { csv, dry_run: true } }))
    assert.deepEqual(dry.experts, { created: 40, updated: 0, unchanged: 0 })
    const before = await contentRowCounts(ctx)
    const first = expectOk(await owner().post(url, { params: params(), body: { csv } }))
    assert.deepEqual(first.experts, { created: 40, updated: 0, unchanged: 0 })
    assert.notDeepEqual(await contentRowCounts(ctx), before)
    const written = await contentRowCounts(ctx)
    const again = expectOk(await owner().post(url, { params: params(), body: { csv } }))
    assert.deepEqual(again.experts, { created: 0, updated: 0, unchanged: 40 })
    assert.deepEqual(await contentRowCounts(ctx), written)
    const changed = csv.replace('ok-7,Ada,Person7,Researcher', 'ok-7,Ada,Person7,Professor')
    const update = expectOk(await owner().post(url, { params: params(), body: { csv: changed } }))
    assert.deepEqual(update.experts, { created: 0, updated: 1, unchanged: 39 })
    const profile = expectOk(
      await owner().get('/v2/organization/{corporation}/expert/{username}', {
        params: { ...params(), username: 'ada-person7' },
      }),
    )
    assert.equal(profile.account[0]?.job_title, 'Professor')
    assert.deepEqual(
      profile.topic.map((t) => t.name),
      ['Energy', 'Climate'],
    )
  })

  test('an edited mapping is used, and an unmapped required field is one problem, not one per row', async () => {
    const csv = 'ref,given,family,role,mail,org\nm-1,Grace,Hopper,Admiral,grace@navy.example,Navy\n'
    const unmapped = expectOk(await owner().post(url, { params: params(), body: { csv, dry_run: true } }))
    assert.deepEqual(
      unmapped.problems.map((p) => [p.row, p.field]),
      [
        [null, 'key'],
        [null, 'firstname'],
        [null, 'lastname'],
        [null, 'company'],
      ],
    )
    const mapping = { ref: 'key', given: 'firstname', family: 'lastname', org: 'company' }
    const mapped = expectOk(
      await owner().post(url, { params: params(), body: { csv, mapping, dry_run: true } }),
    )
    assert.deepEqual(mapped.problems, [])
    assert.deepEqual(mapped.experts, { created: 1, updated: 0, unchanged: 0 })
  })

  test('the template downloads and, filled in, imports', async () => {
    const response = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/experts/import/template`,
      headers: ctx.tenant.auth,
    })
    assert.equal(response.statusCode, 200)
    assert.match(String(response.headers['content-type']), /^text\/csv/)
    assert.match(String(response.headers['content-disposition']), /experts-template\.csv/)
    const [header] = response.body.split('\r\n')
    assert.ok(header?.startsWith('key,firstname,lastname,job_title,email,company'))
    const dry = expectOk(
      await owner().post(url, { params: params(), body: { csv: response.body, dry_run: true } }),
    )
    assert.deepEqual(dry.problems, [])
    assert.deepEqual(dry.experts, { created: 1, updated: 0, unchanged: 0 })
  })

  test('namesakes across batches get distinct usernames in file order, at a cost that does not grow with their number', async () => {
    const namesakes = (count: number, prefix: string) =>
      JSON.stringify({
        experts: Array.from({ length: count }, (_, i) => ({
          key: `${prefix}-${i}`,
          firstname: 'María',
          lastname: `García ${prefix}`,
          job_title: 'Nurse',
          email: `${prefix}${i}@org.example`,
          company: 'Org',
          sections: { topic: [{ name: 'Care' }] },
        })),
      })
    const statements = async (count: number, prefix: string) => {
      const counter = queryCounter()
      const db = ctx.testDatabase.database.db.withPlugin(counter)
      const result = await importContent(
        cliWriteContext(db, ctx.tenant.orgId, 'import', ctx.clock.now()),
        namesakes(count, prefix),
      )
      return { usernames: result.ids.experts, count: counter.count }
    }
    const many = await statements(1200, 'many')
    assert.equal(new Set(many.usernames).size, 1200)
    assert.deepEqual(many.usernames.slice(0, 3), [
      'maria-garcia-many',
      'maria-garcia-many-2',
      'maria-garcia-many-3',
    ])
    assert.equal(many.usernames[1199], 'maria-garcia-many-1200')
    const few = await statements(100, 'few')
    assert.equal(few.usernames[99], 'maria-garcia-few-100')
    // 12 times the experts, and far fewer than 12 times the statements: they are batched.
    assert.ok(many.count < few.count * 4, `${many.count} statements for 1,200, ${few.count} for 100`)
  })

  test('refusals: no write scope, a role below editor, another organization, a body that is not CSV', async () => {
    const csv = peopleCsv(1, 'refused')
    const readOnly = await scopedToken(ctx.app, ctx.tenant.client, 'read')
    expectError(
      await api(ctx.app, readOnly).post(url, { params: params(), body: { csv } }),
      403,
      'insufficient_scope',
    )
    const inquiries = await personToken(ctx, ctx.tenant.orgId, 'inquiries')
    expectError(
      await api(ctx.app, inquiries.token).post(url, { params: params(), body: { csv } }),
      403,
      'insufficient_scope',
    )
    const editor = await personToken(ctx, ctx.tenant.orgId, 'editor')
    const asEditor = expectOk(
      await api(ctx.app, editor.token).post(url, { params: params(), body: { csv, dry_run: true } }),
    )
    assert.deepEqual(asEditor.experts, { created: 1, updated: 0, unchanged: 0 })
    const other = expectError(
      await api(ctx.app, ctx.other).post(url, { params: params(), body: { csv } }),
      403,
      'forbidden',
    )
    assert.ok(other.message.length > 0)
    const broken = expectOk(
      await owner().post(url, { params: params(), body: { csv: 'a,"b\nc,d', dry_run: true } }),
    )
    assert.equal(broken.problems.length, 1)
    assert.match(broken.problems[0]?.message ?? '', /not valid CSV/)
  })
})

test('usernames of a same-name batch are distinct, in order, and continue across batches', async () => {
  const handedOut = new Set(['maria-garcia', 'maria-garcia-3'])
  const asked: number[] = []
  const assigner = new UsernameAssigner(async (candidates) => {
    asked.push(candidates.length)
    return new Set(candidates.filter((c) => handedOut.has(c)))
  })
  const first = await assigner.assign(['maria-garcia', 'ada-lovelace', 'maria-garcia', 'maria-garcia'])
  assert.deepEqual(first, ['maria-garcia-2', 'ada-lovelace', 'maria-garcia-4', 'maria-garcia-5'])
  const second = await assigner.assign(Array.from({ length: 500 }, () => 'maria-garcia'))
  assert.equal(new Set(second).size, 500)
  assert.equal(second[0], 'maria-garcia-6')
  assert.equal(second[499], 'maria-garcia-505')
  // One lookup per round, whatever the number of namesakes.
  assert.ok(asked.length <= 3, `asked ${asked.length} times`)
  const again = new UsernameAssigner(
    async (candidates) => new Set(candidates.filter((c) => handedOut.has(c))),
  )
  assert.deepEqual(
    await again.assign(['maria-garcia', 'ada-lovelace', 'maria-garcia', 'maria-garcia']),
    first,
  )
})
