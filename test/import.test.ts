import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { Type } from 'typebox'
import { cliWriteContext } from '../src/audit/write-context.js'
import { ImportRejected, importContent } from '../src/import/index.js'
import { readProfile } from '../src/profiles/read.js'
import { parsed, present } from './helpers/checked.js'
import { runCli } from './helpers/cli.js'
import { contentRowCounts, exampleFile, importDocument } from './helpers/content.js'
import { createExpert, describeEachDialect } from './helpers/harness.js'

const cli = (args: string[]) => runCli(args)

const expert = (key: string, extra: Record<string, unknown> = {}) => ({
  key,
  firstname: 'Marie',
  lastname: 'Curie',
  job_title: 'Physicist',
  email: `${key}@lab.example`,
  company: 'Lab',
  ...extra,
})

async function rejection(promise: Promise<unknown>): Promise<ImportRejected> {
  try {
    await promise
  } catch (error) {
    if (error instanceof ImportRejected) return error
    throw error
  }
  throw new Error('the import was accepted')
}

/** An array of profile elements or import records, of no fixed shape. */
const Elements = Type.Array(Type.Record(Type.String(), Type.Unknown()))
/** The profile sections the re-import test reads. */
const Sections = Type.Object({
  article: Type.Array(Type.Object({ id: Type.Integer(), title: Type.String() })),
  education: Type.Array(Type.Object({ institution: Type.String() })),
  account: Type.Array(Type.Object({ job_title: Type.String() })),
})

describeEachDialect('import', (ctx) => {
  const dir = mkdtempSync(join(tmpdir(), 'expertdir-import-'))

  test('rejects a file with one bad record, names its position and field, and changes nothing', async () => {
    const before = await contentRowCounts(ctx)
    const file = exampleFile()
    const spotlight = present(file.spotlights[1])
    spotlight.featured_image = 'not a url'
    const error = await rejection(importDocument(ctx, ctx.tenant.orgId, file))
    assert.deepEqual(error.issues, [
      {
        position: 'spotlights[1]',
        key: 'post-rain-draft',
        field: 'featured_image',
        message: 'must be an http(s) URL',
      },
    ])
    assert.deepEqual(await contentRowCounts(ctx), before)
  })

  test('reports every bad record of a file at once', async () => {
    const error = await rejection(
      importDocument(ctx, ctx.tenant.orgId, {
        experts: [
          expert('a', {
            sections: {
              biography: [{ biography: 'one' }, { biography: 'two' }],
              article: [{ url: 'https://x.example' }],
            },
          }),
          expert('b', { email: 'nope', location_state: 'ON' }),
          expert('a'),
        ],
        spotlights: [{ key: 's', title: 'T', html: '<p>x</p>', experts: ['ghost'] }],
        questions: [
          { key: 'q', question: 'Q?', answers: [{ expert: 'ghost2', answer: 'x', created: 1700000000000 }] },
        ],
        extra: [],
      }),
    )
    assert.deepEqual(
      error.issues.map((issue) => `${issue.position} ${issue.field}: ${issue.message}`),
      [
        'extra : is not a known list (organization, experts, spotlights, questions)',
        'experts[0] sections.article[0].title: is required',
        'experts[0] sections.biography: holds at most one element',
        'experts[1] email: must be a valid email address',
        'experts[1] location_state: requires location_country',
        'experts[2] key: repeats the key of an earlier expert',
        'experts[2] email: repeats the email of an earlier expert',
        'questions[0] answers[0].created: looks like unix milliseconds: send unix seconds (divide by 1000)',
      ],
    )
  })

  test('rejects references to experts that exist neither in the file nor in the organization', async () => {
    const before = await contentRowCounts(ctx)
    const error = await rejection(
      importDocument(ctx, ctx.tenant.orgId, {
        experts: [expert('known')],
        spotlights: [{ key: 's', title: 'T', html: '<p>x</p>', experts: ['known', 'ghost'] }],
      }),
    )
    assert.equal(error.issues.length, 1)
    assert.equal(error.issues[0]?.position, 'spotlights[0]')
    assert.equal(error.issues[0]?.field, 'experts[1]')
    assert.deepEqual(await contentRowCounts(ctx), before)
  })

  test('imports the example file, and a re-import changes nothing and keeps every id', async () => {
    const file = exampleFile()
    const first = await importDocument(ctx, ctx.tenant.orgId, file)
    assert.deepEqual(first.experts, { created: 2, updated: 0, unchanged: 0 })
    assert.deepEqual(first.spotlights, { created: 2, updated: 0, unchanged: 0 })
    assert.deepEqual(first.questions, { created: 1, updated: 0, unchanged: 0 })
    const db = ctx.testDatabase.database.db
    const counts = await contentRowCounts(ctx)
    const profile = await readProfile(db, ctx.tenant.orgId, 'amara-nwosu', 'expert', 'all')
    ctx.clock.advance(60_000)
    const second = await importDocument(ctx, ctx.tenant.orgId, file)
    assert.deepEqual(second.experts, { created: 0, updated: 0, unchanged: 2 })
    assert.deepEqual(second.spotlights, { created: 0, updated: 0, unchanged: 2 })
    assert.deepEqual(second.questions, { created: 0, updated: 0, unchanged: 1 })
    assert.deepEqual(second.ids, first.ids)
    assert.deepEqual(await contentRowCounts(ctx), counts)
    assert.deepEqual(await readProfile(db, ctx.tenant.orgId, 'amara-nwosu', 'expert', 'all'), profile)
  })

  test('an import of several batches (the tables analyzed on the way on PostgreSQL) is rolled back whole by a dry run, then written whole', async () => {
    const org = await ctx.addTenant('Several Batches University')
    const people = {
      experts: Array.from({ length: 1100 }, (_, i) =>
        expert(`batch-${i}`, { lastname: `Curie ${i}`, sections: { topic: [{ name: `Topic ${i % 7}` }] } }),
      ),
    }
    const text = JSON.stringify(people)
    const write = cliWriteContext(ctx.testDatabase.database.db, org.orgId, 'import', ctx.clock.now())
    const before = await contentRowCounts(ctx)
    const dry = await importContent(write, text, { dryRun: true })
    assert.deepEqual(dry.experts, { created: 1100, updated: 0, unchanged: 0 })
    assert.deepEqual(await contentRowCounts(ctx), before, 'the dry run wrote nothing')
    const done = await importContent(write, text)
    assert.deepEqual(done.experts, { created: 1100, updated: 0, unchanged: 0 })
    const after = await contentRowCounts(ctx)
    assert.equal(after.experts, (before.experts ?? 0) + 1100)
    const last = await ctx.testDatabase.database.db
      .selectFrom('experts')
      .select('lastname')
      .where('org_id', '=', org.orgId)
      .where('username', '=', done.ids.experts[1099] ?? '')
      .executeTakeFirst()
    assert.equal(last?.lastname, 'Curie 1099')
  })

  test('a changed re-import updates elements in place by key and drops the ones no longer listed', async () => {
    const db = ctx.testDatabase.database.db
    const before = parsed(Sections, await readProfile(db, ctx.tenant.orgId, 'amara-nwosu', 'expert', 'all'))
    const file = exampleFile()
    const expert = present(file.experts[0])
    const { sections } = expert
    present(parsed(Elements, sections.article)[0]).title = 'Ocean heat and Sahel rainfall, revised'
    sections.education = [present(parsed(Elements, sections.education)[1])]
    file.experts[0] = { ...expert, job_title: 'Chair of Climate Science' }
    ctx.clock.advance(60_000)
    const result = await importDocument(ctx, ctx.tenant.orgId, file)
    assert.deepEqual(result.experts, { created: 0, updated: 1, unchanged: 1 })
    const after = parsed(Sections, await readProfile(db, ctx.tenant.orgId, 'amara-nwosu', 'expert', 'all'))
    assert.equal(after.article?.[0]?.id, before.article?.[0]?.id)
    assert.equal(after.article?.[0]?.title, 'Ocean heat and Sahel rainfall, revised')
    assert.equal(after.education?.length, 1)
    assert.equal(after.education?.[0]?.institution, 'Northlake University')
    assert.equal(after.account?.[0]?.job_title, 'Chair of Climate Science')
    const row = await db
      .selectFrom('experts')
      .select('updated_at')
      .where('username', '=', 'amara-nwosu')
      .executeTakeFirstOrThrow()
    assert.equal(Number(row.updated_at), ctx.clock.now())
  })

  test('an expert created through the API is adopted by email and keeps its username', async () => {
    const username = await createExpert(ctx, ctx.tenant, {
      firstname: 'Ada',
      lastname: 'Lovelace',
      email: 'ada@engine.example',
    })
    const result = await importDocument(ctx, ctx.tenant.orgId, {
      experts: [
        expert('ada', {
          firstname: 'Ada',
          lastname: 'Lovelace',
          email: 'ADA@engine.example',
          sections: { tagline: { tagline: 'First programmer' } },
        }),
      ],
    })
    assert.deepEqual(result.experts, { created: 0, updated: 1, unchanged: 0 })
    assert.deepEqual(result.ids.experts, [username])
    const profile = await readProfile(
      ctx.testDatabase.database.db,
      ctx.tenant.orgId,
      username,
      'expert',
      'all',
    )
    const taglines = parsed(Type.Array(Type.Object({ tagline: Type.String() })), profile.tagline)
    assert.equal(taglines[0]?.tagline, 'First programmer')
  })

  test('an email held by an expert imported under another key is a conflict', async () => {
    const error = await rejection(
      importDocument(ctx, ctx.tenant.orgId, {
        experts: [expert('someone-else', { email: 'ada@engine.example' })],
      }),
    )
    assert.equal(error.issues[0]?.field, 'email')
    assert.match(error.issues[0]?.message ?? '', /imported with the key ada/)
  })

  test('reads NDJSON with a type per line and reports bad lines by number', async () => {
    const lines = [
      JSON.stringify({ type: 'expert', ...expert('nd1') }),
      '',
      JSON.stringify({
        type: 'spotlight',
        key: 'nd-post',
        title: 'Hello',
        html: '<p>Hi</p>',
        experts: ['nd1'],
        published: 1,
      }),
    ]
    const result = await importDocument(ctx, ctx.tenant.orgId, lines.join('\n'), 'big.ndjson')
    assert.deepEqual(result.experts, { created: 1, updated: 0, unchanged: 0 })
    assert.deepEqual(result.spotlights, { created: 1, updated: 0, unchanged: 0 })
    const error = await rejection(
      importDocument(
        ctx,
        ctx.tenant.orgId,
        [lines[0], '{oops', JSON.stringify({ type: 'poem' })].join('\n'),
        'x.ndjson',
      ),
    )
    assert.deepEqual(
      error.issues.map((issue) => [issue.position, issue.field]),
      [
        ['line 2', ''],
        ['line 3', 'type'],
      ],
    )
  })

  test('the CLI imports a file, prints the counts as JSON, and refuses a bad file with exit 1', async () => {
    const org = await ctx.addTenant('CLI University')
    const good = join(dir, 'good.json')
    writeFileSync(
      good,
      JSON.stringify({
        experts: [expert('cli-1')],
        questions: [{ key: 'q', question: 'Q?', answers: [{ expert: 'cli-1', answer: 'A' }] }],
      }),
    )
    const ok = await cli(['--db', ctx.testDatabase.url, 'import', good, '--org', String(org.orgId), '--json'])
    assert.equal(ok.code, 0, ok.stderr)
    assert.deepEqual(JSON.parse(ok.stdout), {
      experts: { created: 1, updated: 0, unchanged: 0 },
      spotlights: { created: 0, updated: 0, unchanged: 0 },
      questions: { created: 1, updated: 0, unchanged: 0 },
    })
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, JSON.stringify({ experts: [expert('cli-2', { email: 'x' })] }))
    const refused = await cli([
      '--db',
      ctx.testDatabase.url,
      'import',
      bad,
      '--org',
      String(org.orgId),
      '--json',
    ])
    assert.equal(refused.code, 1)
    assert.deepEqual(JSON.parse(refused.stdout), {
      imported: false,
      errors: [
        { position: 'experts[0]', key: 'cli-2', field: 'email', message: 'must be a valid email address' },
      ],
    })
    assert.match(refused.stderr, /experts\[0\] \(key cli-2\): email must be a valid email address/)
    const experts = await ctx.testDatabase.database.db
      .selectFrom('experts')
      .select('username')
      .where('org_id', '=', org.orgId)
      .execute()
    assert.equal(experts.length, 1, 'the refused file added nobody')
  })

  test('seed --demo fills an organization with a dozen published experts, posts and questions', async (t) => {
    const org = await ctx.addTenant('Demo')
    const media = mkdtempSync(join(tmpdir(), 'expertdir-seed-media-'))
    t.after(() => rmSync(media, { recursive: true, force: true }))
    const seeded = await runCli(
      ['--db', ctx.testDatabase.url, 'seed', '--demo', '--org', String(org.orgId), '--json'],
      { EXPERTDIR_MEDIA_DIR: media, EXPERTDIR_PUBLIC_URL: 'https://experts.example' },
    )
    assert.equal(seeded.code, 0, seeded.stderr)
    const output = parsed(
      Type.Object({
        experts: Type.Array(Type.String()),
        spotlights: Type.Array(Type.Integer()),
        questions: Type.Array(Type.Integer()),
      }),
      JSON.parse(seeded.stdout),
    )
    assert.equal(output.experts.length, 12)
    assert.ok(output.spotlights.length >= 4 && output.questions.length >= 3)
    const db = ctx.testDatabase.database.db
    const profile = await readProfile(db, org.orgId, present(output.experts[0]), 'expert', 'all')
    const filled = Object.values(profile).filter((value) => !Array.isArray(value) || value.length > 0)
    assert.ok(filled.length >= 38, `${filled.length} sections filled`)
    const post = await ctx.inject({
      method: 'GET',
      url: `/v2/spotlight/${org.orgId}/${output.spotlights[0]}`,
      headers: org.auth,
    })
    assert.equal(post.statusCode, 200)
    assert.ok(post.json().data.tags.length > 0)
    // Pictures drawn at seed time, stored where uploads go and served from the public address.
    assert.match(post.json().data.spotlight[0].featured_image, /^https:\/\/experts\.example\/media\//)
    // A photo is stored as a media reference; reads put the public address in front of it.
    const avatar = parsed(
      Type.Object({ l: Type.Optional(Type.Object({ url: Type.Optional(Type.String()) })) }),
      profile.avatar,
    )
    assert.match(avatar.l?.url ?? '', /^\/media\//)
    // The media desk's filters find some experts and not all.
    const available = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${org.orgId}/expert?media_available=1&page_size=50`,
      headers: org.auth,
    })
    assert.equal(available.statusCode, 200, available.body)
    const found = available.json().data.experts.length
    assert.ok(found >= 6 && found < 12, `${found} of 12 available`)
  })
})
