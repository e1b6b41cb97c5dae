import assert from 'node:assert/strict'
import { test } from 'node:test'
import { findExpert } from '../src/experts/repository.js'
import {
  createExpert,
  describeEachDialect,
  detailsOf,
  envelope,
  expertBody,
  FORM,
  type TestContext,
} from './helpers/harness.js'

function post(ctx: TestContext, payload: unknown, headers: Record<string, string> = {}) {
  return ctx.inject({
    method: 'POST',
    url: `/v2/organization/${ctx.tenant.orgId}/expert`,
    headers: { ...ctx.tenant.auth, ...headers },
    payload: payload as string,
  })
}

function put(ctx: TestContext, username: string, payload: unknown, headers: Record<string, string> = {}) {
  return ctx.inject({
    method: 'PUT',
    url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
    headers: { ...ctx.tenant.auth, ...headers },
    payload: payload as string,
  })
}

async function stored(ctx: TestContext, username: string) {
  return findExpert(ctx.testDatabase.database.db, ctx.tenant.orgId, username)
}

async function expertCount(ctx: TestContext): Promise<number> {
  const rows = await ctx.testDatabase.database.db.selectFrom('experts').select('id').execute()
  return rows.length
}

describeEachDialect('experts: create', (ctx) => {
  test('creates an expert, returns a slug username, and stores it unpublished and public', async () => {
    const response = await post(
      ctx,
      expertBody({
        firstname: ' José ',
        lastname: 'Müller',
        location_country: 'ca',
        location_state: 'ca-on',
      }),
    )
    assert.equal(response.statusCode, 200)
    assert.deepEqual(envelope(response), { success: true, data: { username: 'jose-muller', inserted: true } })
    const row = await stored(ctx, 'jose-muller')
    assert.equal(row?.firstname, 'José')
    assert.equal(row?.is_published, 0)
    assert.equal(row?.is_private, 0)
    assert.equal(row?.location_country, 'CA')
    assert.equal(row?.location_state, 'ON')
  })

  test('gives a username taken in the organization the next free -N suffix, and never reuses a deleted one', async () => {
    const first = await createExpert(ctx, ctx.tenant, { firstname: 'Ann', lastname: 'Lee' })
    const second = await createExpert(ctx, ctx.tenant, { firstname: 'Ann', lastname: 'Lee' })
    const third = await createExpert(ctx, ctx.tenant, { firstname: 'Ann', lastname: 'Lee' })
    assert.deepEqual([first, second, third], ['ann-lee', 'ann-lee-2', 'ann-lee-3'])
    const deleted = await ctx.inject({
      method: 'DELETE',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/ann-lee-2`,
      headers: ctx.tenant.auth,
    })
    assert.equal(deleted.statusCode, 200)
    assert.equal(await createExpert(ctx, ctx.tenant, { firstname: 'Ann', lastname: 'Lee' }), 'ann-lee-4')
  })

  test('another organization has usernames of its own: its first Ann Lee is ann-lee', async () => {
    await createExpert(ctx, ctx.tenant, { firstname: 'Ann', lastname: 'Lee' })
    const elsewhere = await ctx.addTenant('Elsewhere College')
    assert.equal(await createExpert(ctx, elsewhere, { firstname: 'Ann', lastname: 'Lee' }), 'ann-lee')
  })

  test('names without Latin letters get expert- and a random suffix', async () => {
    const username = await createExpert(ctx, ctx.tenant, { firstname: '李', lastname: '小龙' })
    assert.match(username, /^expert-[a-z0-9]+$/)
    assert.ok(username.length >= 3 && username.length <= 64)
  })

  test('a very long name still gives a username of at most 64 characters', async () => {
    const username = await createExpert(ctx, ctx.tenant, {
      firstname: 'a'.repeat(200),
      lastname: 'b'.repeat(200),
    })
    assert.ok(username.length <= 64, username)
    assert.match(username, /^[a-z0-9-]{3,64}$/)
  })

  test('lists every missing required field at once', async () => {
    const before = await expertCount(ctx)
    const details = detailsOf(await post(ctx, {}))
    assert.deepEqual(Object.keys(details).sort(), ['company', 'email', 'firstname', 'job_title', 'lastname'])
    for (const message of Object.values(details)) assert.equal(message, 'is required')
    assert.equal(await expertCount(ctx), before)
  })

  test('required strings must not be empty after trimming', async () => {
    const details = detailsOf(await post(ctx, expertBody({ firstname: '   ', company: '' })))
    assert.equal(details.firstname, 'must not be empty')
    assert.equal(details.company, 'must not be empty')
  })

  test('rejects is_published and is_private on create', async () => {
    const details = detailsOf(await post(ctx, expertBody({ is_published: 1, is_private: 0 })))
    assert.match(details.is_published ?? '', /not accepted on create/)
    assert.match(details.is_private ?? '', /not accepted on create/)
  })

  test('rejects unknown fields', async () => {
    const details = detailsOf(await post(ctx, expertBody({ nickname: 'Amazing Grace' })))
    assert.equal(details.nickname, 'is not a known field')
  })

  test('checks lengths in code points', async () => {
    const ok = await post(ctx, expertBody({ job_title: '😀'.repeat(255) }))
    assert.equal(ok.statusCode, 200, ok.body)
    const details = detailsOf(
      await post(
        ctx,
        expertBody({
          firstname: 'x'.repeat(256),
          department: 'd'.repeat(256),
          location_postal: '1'.repeat(17),
          email: `${'a'.repeat(250)}@b.co`,
        }),
      ),
    )
    assert.match(details.firstname ?? '', /at most 255/)
    assert.match(details.department ?? '', /at most 255/)
    assert.match(details.location_postal ?? '', /at most 16/)
    assert.ok(details.email)
  })

  test('rejects control characters, NUL and lone surrogates; keeps other Unicode', async () => {
    const details = detailsOf(
      await post(
        ctx,
        expertBody({ firstname: 'Gr\u0000ace', lastname: 'Hop\nper', job_title: 'Lone \ud800 surrogate' }),
      ),
    )
    assert.ok(details.firstname)
    assert.ok(details.lastname)
    assert.ok(details.job_title)
    const fine = await post(ctx, expertBody({ firstname: 'Zoë', lastname: 'Ångström 😀' }))
    assert.equal(fine.statusCode, 200)
  })

  test('validates email, phone number, extension', async () => {
    const details = detailsOf(
      await post(
        ctx,
        expertBody({ email: 'not-an-email', phone_number: 'call me', phone_number_extension: '12a' }),
      ),
    )
    assert.equal(details.email, 'must be a valid email address')
    assert.match(details.phone_number ?? '', /digits/)
    assert.match(details.phone_number_extension ?? '', /digits/)
    const ok = await post(
      ctx,
      expertBody({ phone_number: '+1 (416) 555-0100', phone_number_extension: '1234' }),
    )
    assert.equal(ok.statusCode, 200, ok.body)
  })

  test('checks country and state codes against ISO 3166', async () => {
    const badCountry = detailsOf(await post(ctx, expertBody({ location_country: 'XX' })))
    assert.match(badCountry.location_country ?? '', /ISO 3166-1/)
    const stateWithoutCountry = detailsOf(await post(ctx, expertBody({ location_state: 'ON' })))
    assert.match(stateWithoutCountry.location_state ?? '', /requires location_country/)
    const wrongState = detailsOf(
      await post(ctx, expertBody({ location_country: 'US', location_state: 'ON' })),
    )
    assert.match(wrongState.location_state ?? '', /subdivision of US/)
    const username = await createExpert(ctx, ctx.tenant, { location_country: 'us', location_state: 'US-CA' })
    const row = await stored(ctx, username)
    assert.equal(row?.location_country, 'US')
    assert.equal(row?.location_state, 'CA')
  })

  test('an email already used in the organization is 409, case-insensitively, naming the holder', async () => {
    const username = await createExpert(ctx, ctx.tenant, { email: 'dup@example.org' })
    const response = await post(ctx, expertBody({ email: 'DUP@Example.org' }))
    assert.equal(response.statusCode, 409)
    assert.equal(envelope(response).error?.code, 'conflict')
    assert.equal(
      (envelope(response).error?.details?.[0] as { username?: string } | undefined)?.username,
      username,
    )
    const elsewhere = await createExpert(ctx, ctx.other, { email: 'dup@example.org' })
    assert.ok(elsewhere, 'another organization may use the same email')
  })

  test('accepts a form-encoded body', async () => {
    const body = new URLSearchParams({ ...expertBody({ firstname: 'Form', lastname: 'Body' }) })
    const response = await post(ctx, body.toString(), FORM)
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(envelope(response).data?.username, 'form-body')
  })

  test('a repeated form key is a 400 naming the key', async () => {
    const body = `${new URLSearchParams(expertBody() as Record<string, string>)}&firstname=Again`
    const details = detailsOf(await post(ctx, body, FORM))
    assert.match(details.firstname ?? '', /repeated/)
  })

  test('JSON values must already have their type', async () => {
    const details = detailsOf(await post(ctx, expertBody({ firstname: 42, phone_number: 5550100 })))
    assert.equal(details.firstname, 'must be a string')
    assert.equal(details.phone_number, 'must be a string')
  })
})

describeEachDialect('experts: update, delete, read', (ctx) => {
  test('updates part of an expert and reports whether anything changed', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const changed = await put(ctx, username, { job_title: 'Commodore', is_published: 1 })
    assert.deepEqual(envelope(changed), { success: true, data: { username, updated: true } })
    const again = await put(ctx, username, { job_title: 'Commodore', is_published: 1 })
    assert.deepEqual(envelope(again), { success: true, data: { username, updated: false } })
    const row = await stored(ctx, username)
    assert.equal(row?.job_title, 'Commodore')
    assert.equal(row?.is_published, 1)
  })

  test('flags take 1 or 0 only; form flags are coerced from "1"/"0" but JSON strings are not', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    assert.match(detailsOf(await put(ctx, username, { is_private: 2 })).is_private ?? '', /1 or 0/)
    assert.ok(detailsOf(await put(ctx, username, { is_private: '1' })).is_private)
    assert.ok(detailsOf(await put(ctx, username, 'is_private=01', FORM)).is_private)
    const form = await put(ctx, username, 'is_private=1&is_published=0', FORM)
    assert.equal(form.statusCode, 200, form.body)
    assert.equal((await stored(ctx, username))?.is_private, 1)
  })

  test('an empty update is a 400', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const details = detailsOf(await put(ctx, username, {}))
    assert.match(details.body ?? '', /at least one field/)
  })

  test('an update checks every rule of create, and email uniqueness against the others', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    await createExpert(ctx, ctx.tenant, { email: 'taken@example.org' })
    const details = detailsOf(await put(ctx, username, { firstname: '', email: 'x', unknown: 1 }))
    assert.deepEqual(Object.keys(details).sort(), ['email', 'firstname', 'unknown'])
    const conflict = await put(ctx, username, { email: 'Taken@example.org' })
    assert.equal(conflict.statusCode, 409)
  })

  test('an update of the state alone is checked against the stored country', async () => {
    const username = await createExpert(ctx, ctx.tenant, { location_country: 'CA', location_state: 'ON' })
    assert.equal((await put(ctx, username, { location_state: 'qc' })).statusCode, 200)
    assert.equal((await stored(ctx, username))?.location_state, 'QC')
    assert.match(detailsOf(await put(ctx, username, { location_state: 'TX' })).location_state ?? '', /CA/)
    assert.match(detailsOf(await put(ctx, username, { location_country: 'US' })).location_state ?? '', /US/)
    assert.equal((await put(ctx, username, { location_country: 'US', location_state: 'TX' })).statusCode, 200)
  })

  test('an empty optional field clears it', async () => {
    const username = await createExpert(ctx, ctx.tenant, { department: 'Navy' })
    assert.equal((await put(ctx, username, { department: '' })).statusCode, 200)
    assert.equal((await stored(ctx, username))?.department, null)
  })

  test('updating an unknown expert is 404', async () => {
    const response = await put(ctx, 'no-such-expert', { job_title: 'x' })
    assert.equal(response.statusCode, 404)
    assert.equal(envelope(response).error?.code, 'not_found')
  })

  test('deletes an expert; a second delete and any read of it are 404', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const url = `/v2/organization/${ctx.tenant.orgId}/expert/${username}`
    const deleted = await ctx.inject({ method: 'DELETE', url, headers: ctx.tenant.auth })
    assert.deepEqual(envelope(deleted), { success: true, data: { deleted: true, username } })
    assert.equal(await stored(ctx, username), undefined)
    assert.equal((await ctx.inject({ method: 'DELETE', url, headers: ctx.tenant.auth })).statusCode, 404)
    assert.equal((await ctx.inject({ method: 'GET', url, headers: ctx.tenant.auth })).statusCode, 404)
    assert.equal((await put(ctx, username, { job_title: 'x' })).statusCode, 404)
  })

  test('reads the profile: all 46 keys, the account element, the empty avatar', async () => {
    const username = await createExpert(ctx, ctx.tenant, { department: 'Research', location_country: 'CA' })
    const response = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
      headers: ctx.tenant.auth,
    })
    assert.equal(response.statusCode, 200)
    const data = envelope(response).data as Record<string, unknown>
    assert.equal(Object.keys(data).length, 46)
    assert.deepEqual(data.avatar, { s: {}, m: {}, o: {}, l: {} })
    const [account] = data.account as Record<string, unknown>[]
    assert.equal(account?.username, username)
    assert.equal(account?.department, 'Research')
    assert.equal(account?.corporation_id, ctx.tenant.orgId)
    assert.equal(account?.is_published, 0)
    // 20 account fields, the six of the works importer (three identifiers, three policies) and the
    // eight of the media desk (availability, its end, languages, remote, studio, zone, pronunciation, pronouns)
    // and the two times of the publishing schedule (a `read` caller sees them).
    assert.equal(Object.keys(account ?? {}).length, 36)
  })

  test('a malformed username or corporation in the path is a 400', async () => {
    for (const url of [
      `/v2/organization/${ctx.tenant.orgId}/expert/Not_A_Username`,
      '/v2/organization/01/expert/someone',
      '/v2/organization/0x10/expert/someone',
      '/v2/organization/1e3/expert/someone',
      '/v2/organization/99999999999999999999/expert/someone',
    ]) {
      const response = await ctx.inject({ method: 'GET', url, headers: ctx.tenant.auth })
      assert.equal(response.statusCode, 400, url)
      assert.equal(envelope(response).error?.code, 'validation_failed')
    }
  })
})
