import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { Migrator, sql } from 'kysely'
import type { components } from '../packages/client/src/schema.js'
import { createClient } from '../src/auth/clients.js'
import type { Queryable } from '../src/db/database.js'
import { MIGRATIONS } from '../src/db/migrate.js'
import { fuzzyQueryKey, nameKey, nameSimilarity, trigramsOf } from '../src/derived/name-similarity.js'
import { rebuildSearchIndexes, rebuildSearchWhereMissing } from '../src/derived/search-rebuild.js'
import { createOrganization } from '../src/organizations/repository.js'
import { searchExperts } from '../src/search/service.js'
import { listPeople } from '../src/staff/service.js'
import { migrateDatabase } from '../src/system/migrate.js'
import { api, type Caller, expectOk } from './helpers/api.js'
import { present } from './helpers/checked.js'
import { importDocument } from './helpers/content.js'
import { createTestDatabase, testDialects } from './helpers/databases.js'
import { createExpert, createStaff, describeEachDialect } from './helpers/harness.js'
import { scopedToken } from './helpers/oauth.js'

type Schemas = components['schemas']

/** pg_trgm's similarity of "zoe muler" and "zoe muller": 9 shared trigrams of 12. */
const ZOE_SIMILARITY = 0.75

test('the similarity is pg_trgm\'s: "zoe muler" vs "Zoë Müller" is exactly 0.75', () => {
  assert.equal(nameSimilarity('zoe muler', 'Zoë Müller'), ZOE_SIMILARITY)
  assert.equal(nameKey('  Zoë  MÜLLER-Lüdenscheidt '), 'zoe muller ludenscheidt')
  assert.equal(nameKey('Øyvind Łukasz Straße'), 'oyvind lukasz strasse')
  assert.deepEqual(
    [...trigramsOf('zoe muler')].sort(),
    ['  m', '  z', ' mu', ' zo', 'er ', 'ler', 'mul', 'oe ', 'ule', 'zoe'].sort(),
  )
  assert.equal(nameSimilarity('jon smiht', 'John Smith'), 0.3125)
  assert.equal(nameSimilarity('', 'John Smith'), 0)
})

interface Person {
  key: string
  firstname: string
  lastname: string
  country?: string
  is_published?: number
  is_private?: number
  biography?: string
}

const record = (person: Person) => ({
  key: person.key,
  firstname: person.firstname,
  lastname: person.lastname,
  job_title: 'Researcher',
  email: `${person.key}@uni.example`,
  company: 'Uni',
  location_country: person.country ?? 'DE',
  is_published: person.is_published ?? 1,
  is_private: person.is_private ?? 0,
  sections: person.biography ? { biography: { biography: person.biography } } : {},
})

const PEOPLE: Person[] = [
  { key: 'zoe', firstname: 'Zoë', lastname: 'Müller' },
  { key: 'john', firstname: 'John', lastname: 'Smith', country: 'GB' },
  { key: 'jon', firstname: 'Jon', lastname: 'Smith', country: 'US' },
  { key: 'mary', firstname: 'Mary', lastname: 'Jones', biography: 'Wrote a book with John Smith.' },
  { key: 'jose', firstname: 'Jose', lastname: 'Garcia', country: 'ES' },
  { key: 'kirsten', firstname: 'Kirsten', lastname: 'Dahlberg', is_private: 1 },
  { key: 'ingrid', firstname: 'Ingrid', lastname: 'Bergström', is_published: 0 },
]

describeEachDialect('fuzzy names', (ctx) => {
  /** A website's token: `read:public` only. */
  let publicToken = ''
  const search = async (query: string, caller: Caller = ctx.tenant) => {
    const url = `/v2/organization/${ctx.tenant.orgId}/expert?${query}`
    return expectOk(await api(ctx.app, caller).send<Schemas['ExpertSearchResult']>('GET', url))
  }
  const names = async (query: string, caller?: Caller) =>
    (await search(query, caller)).experts.map((expert) => expert.fullname)
  const q = (text: string) => `q=${encodeURIComponent(text)}`

  before(async () => {
    await importDocument(ctx, ctx.tenant.orgId, { experts: PEOPLE.map(record) })
    await importDocument(ctx, ctx.other.orgId, {
      experts: [record({ key: 'other-zoe', firstname: 'Zoe', lastname: 'Muller' })],
    })
    const website = await createClient(
      ctx.testDatabase.database.db,
      ctx.tenant.orgId,
      'site',
      ctx.clock.now(),
      ['read:public'],
    )
    publicToken = await scopedToken(ctx.app, website)
  })

  test('"zoe muler" finds Zoë Müller, in this organization only', async () => {
    const found = await search(q('zoe muler'))
    assert.deepEqual(
      found.experts.map((expert) => [expert.fullname, expert.corporation_id]),
      [['Zoë Müller', ctx.tenant.orgId]],
    )
    assert.equal(found.total, 1)
    assert.deepEqual(found.aggregations.countries, [{ key: 'DE', count: 1 }])
  })

  test('typos in first and last name: "jon smiht" finds both Smiths, the likelier first', async () => {
    // jon smith: 7 of 13 trigrams shared; john smith: 0.3125.
    assert.deepEqual(await names(q('jon smiht')), ['Jon Smith', 'John Smith'])
    const data = await search(q('jon smiht'))
    assert.equal(data.total, 2)
    assert.deepEqual(data.aggregations.countries, [
      { key: 'GB', count: 1 },
      { key: 'US', count: 1 },
    ])
    assert.deepEqual(await names(`${q('jon smiht')}&page_size=1&page_from=1`), ['John Smith'])
    assert.deepEqual(await names(`${q('jon smiht')}&countries=gb`), ['John Smith'])
    assert.deepEqual(await names(`${q('jon smiht')}&sort=name`), ['John Smith', 'Jon Smith'])
  })

  test('accents both ways: accented queries find plain names, plain queries accented ones', async () => {
    assert.deepEqual(await names(q('José García')), ['Jose Garcia'])
    assert.deepEqual(await names(q('jose garsia')), ['Jose Garcia'])
    assert.deepEqual(await names(q('ZOË MÜLER')), ['Zoë Müller'])
    assert.deepEqual(await names(q('ingrid bergstrom')), ['Ingrid Bergström'])
  })

  test('an unrelated name finds nobody; a query under three letters is not matched by likeness', async () => {
    const data = await search(q('quentin tarantino'))
    assert.deepEqual(data.experts, [])
    assert.equal(data.total, 0)
    // "zo" finds Zoë Müller by the words' prefix, never by likeness: under three letters there is no key.
    assert.deepEqual(await names(q('zo')), ['Zoë Müller'])
    assert.equal(fuzzyQueryKey('zo'), undefined)
    assert.equal(fuzzyQueryKey('a, b'), undefined)
    assert.equal(fuzzyQueryKey('Zoë'), 'zoe')
  })

  test('exact text matches rank first, then the names matched by likeness', async () => {
    // Mary Jones matches by her biography's words; Jon Smith only by his name's likeness.
    assert.deepEqual(await names(q('john smith')), ['John Smith', 'Mary Jones', 'Jon Smith'])
    assert.equal((await search(q('john smith'))).total, 3)
  })

  test('read:public never finds a private or unpublished expert by a likeness of the name', async () => {
    assert.deepEqual(await names(q('kirsten dalberg'), publicToken), [])
    assert.deepEqual(await names(q('ingrid bergstrom'), publicToken), [])
    assert.equal((await search(q('ingrid bergstrom'), publicToken)).total, 0)
    assert.deepEqual(await names(q('zoe muler'), publicToken), ['Zoë Müller'])
    // A `read` caller sees them when it asks for them.
    assert.deepEqual(await names(`${q('kirsten dalberg')}&access=private`), ['Kirsten Dahlberg'])
    assert.deepEqual(await names(q('kirsten dalberg')), [], 'the default access is public')
    const directory = await searchExperts(
      { db: ctx.testDatabase.database.db, dialect: ctx.dialect },
      ctx.tenant.orgId,
      { q: 'ingrid bergstrom' },
      'public',
    )
    assert.equal(directory.total, 0)
  })

  test('a rename is found under the new name only; a deleted expert is not found', async () => {
    const username = await createExpert(ctx, ctx.tenant, { firstname: 'Bartholomew', lastname: 'Quist' })
    assert.deepEqual(await names(q('bartolomew quisst')), ['Bartholomew Quist'])
    const put = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
      headers: ctx.tenant.auth,
      payload: { firstname: 'Theodora', lastname: 'Rennick' },
    })
    assert.equal(put.statusCode, 200, put.body)
    assert.deepEqual(await names(q('bartolomew quisst')), [])
    assert.deepEqual(await names(q('teodora renick')), ['Theodora Rennick'])
    const deleted = await ctx.inject({
      method: 'DELETE',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
      headers: ctx.tenant.auth,
    })
    assert.equal(deleted.statusCode, 200, deleted.body)
    assert.deepEqual(await names(q('teodora renick')), [])
  })

  test('the staff list finds its members by a likeness of the name', async () => {
    await createStaff(ctx, ctx.tenant, { firstname: 'Siobhán', lastname: 'Ó Ceallaigh' })
    const found = await listPeople(
      { db: ctx.testDatabase.database.db, dialect: ctx.dialect },
      ctx.tenant.orgId,
      ['staff'],
      { q: 'siobhan o celaigh' },
      'all',
    )
    assert.deepEqual(
      found.people.map((person) => person.fullname),
      ['Siobhán Ó Ceallaigh'],
    )
    assert.equal(found.total, 1)
  })

  test('a rebuild fills the name keys of index rows that lack them', async () => {
    const { db } = ctx.testDatabase.database
    await sql`update expert_search set name_key = null where org_id = ${ctx.tenant.orgId}`.execute(db)
    await sql`update expert_search_versions set version = version + 1 where org_id = ${ctx.tenant.orgId}`.execute(
      db,
    )
    assert.deepEqual(await names(q('zoe muler')), [], 'without its key a name is not found by likeness')
    assert.deepEqual(await rebuildSearchWhereMissing(db), [ctx.tenant.orgId])
    assert.deepEqual(await names(q('zoe muler')), ['Zoë Müller'])
    assert.deepEqual(await rebuildSearchWhereMissing(db), [], 'nothing left to fill')
    assert.deepEqual(await rebuildSearchIndexes(db, [ctx.tenant.orgId]), [ctx.tenant.orgId])
    assert.deepEqual(await names(q('jon smiht')), ['Jon Smith', 'John Smith'])
  })

  test('on PostgreSQL, pg_trgm computes the same similarity', async (t) => {
    if (ctx.dialect !== 'postgres') {
      t.skip('SQLite has no pg_trgm')
      return
    }
    const { db } = ctx.testDatabase.database
    for (const [a, b] of [
      ['zoe muler', 'zoe muller'],
      ['jon smiht', 'john smith'],
      ['siobhan o celaigh', 'siobhan o ceallaigh'],
      ['quentin tarantino', 'zoe muller'],
    ] as const) {
      const { rows } = await sql<{ s: number }>`select similarity(${a}, ${b}) as s`.execute(db)
      // float4 on PostgreSQL
      assert.equal(Math.fround(nameSimilarity(a, b)), Math.fround(present(rows[0]).s), `${a} / ${b}`)
    }
  })
})

const MIGRATION = '0029_fuzzy_names'

async function insertIndexedExpert(
  db: Queryable,
  orgId: number,
  username: string,
  first: string,
  last: string,
) {
  await sql`insert into usernames (org_id, username, created_at) values (${orgId}, ${username}, 1)`.execute(
    db,
  )
  const { rows } = await sql<{
    id: number | string
  }>`insert into experts (org_id, username, firstname, lastname,
    job_title, email, email_key, company, is_published, is_private, created_at, updated_at, type)
    values (${orgId}, ${username}, ${first}, ${last}, 'Researcher', ${`${username}@uni.example`},
    ${`${username}@uni.example`}, 'Uni', 1, 0, 1, 1, 'expert') returning id`.execute(db)
  // An index row as the release before 0029 wrote it: no name key.
  await sql`insert into expert_search (expert_id, org_id, names, title, tagline, keywords, biography, sort_last,
    sort_first, username, company_key, is_published, is_private, completeness, modified, type)
    values (${present(rows[0]).id}, ${orgId}, ${`${first} ${last}`}, 'Researcher Uni', '', '', '', ${last.toLowerCase()},
    ${first.toLowerCase()}, ${username}, 'uni', 1, 0, 0, 1, 'expert')`.execute(db)
}

/** Data indexed before migration 0029 is found by a likeness of its names once `migrate` has run. */
describe(`migration ${MIGRATION}`, async () => {
  const names = Object.keys(MIGRATIONS).sort()
  const before = present(names[names.indexOf(MIGRATION) - 1])
  for (const { dialect, skip } of await testDialects()) {
    test(`fills the name keys of rows indexed before it, and down removes them (${dialect})`, {
      skip,
    }, async () => {
      const testDatabase = await createTestDatabase(dialect)
      const { database } = testDatabase
      const { db } = database
      try {
        const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } })
        assert.equal((await migrator.migrateTo(before)).error, undefined)
        const org = await createOrganization(db, { name: 'Before 0029' }, Date.now())
        await insertIndexedExpert(db, org.id, 'zoe-muller', 'Zoë', 'Müller')
        await migrateDatabase(database)
        const { rows } = await sql<{ name_key: string | null }>`select name_key from expert_search
          where org_id = ${org.id}`.execute(db)
        assert.deepEqual(
          rows.map((row) => row.name_key),
          ['zoe muller'],
        )
        const found = await searchExperts({ db, dialect }, org.id, { q: 'zoe muler' }, 'public')
        assert.deepEqual(
          found.experts.map((expert) => expert.username),
          ['zoe-muller'],
        )
        assert.equal((await migrator.migrateTo(before)).error, undefined)
        const { rows: after } = await sql<{ n: number | string }>`select count(*) as n from expert_search
          where org_id = ${org.id}`.execute(db)
        assert.equal(Number(present(after[0]).n), 1, 'down keeps the index rows')
        assert.equal((await migrator.migrateToLatest()).error, undefined)
      } finally {
        await testDatabase.drop()
      }
    })
  }
})
