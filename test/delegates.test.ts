import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { record, records } from './helpers/checked.js'
import { runCli } from './helpers/cli.js'
import { createExpert, describeEachDialect, envelope } from './helpers/harness.js'
import { testImage } from './helpers/images.js'
import { dashboardToken, personToken } from './helpers/people.js'

type Method = NonNullable<InjectOptions['method']>

/**
 * Delegates of a profile (CONTRACT §21): an expert (or an editor) lets another person of the
 * organization edit its profile until a time. The delegate edits that profile as the expert could and
 * nothing more; the grant ends at its time or on revoke, at the next request; the audit log names the
 * delegate and the profile it acted for; nobody grants what it does not hold.
 */
describeEachDialect('delegates of a profile', (ctx) => {
  const hour = 3600
  const seconds = () => Math.floor(ctx.clock.now() / 1000)
  let ada = ''
  let ben = ''
  let cy = ''
  /** The expert person of `ada`, of `ben`, an inquiries person, an editor. */
  let adaPerson: Awaited<ReturnType<typeof personToken>>
  let benPerson: Awaited<ReturnType<typeof personToken>>
  let desk: Awaited<ReturnType<typeof personToken>>
  let editor: Awaited<ReturnType<typeof personToken>>

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  const call = (method: Method, url: string, token: string, payload?: object) =>
    ctx.inject({
      method,
      url: `/v2/organization/${ctx.tenant.orgId}${url}`,
      headers: bearer(token),
      ...(payload ? { payload } : {}),
    })
  const grant = (username: string, token: string, person: number, until = seconds() + hour) =>
    call('POST', `/expert/${username}/delegates`, token, { person, until })
  const setTagline = (username: string, token: string, tagline: string) =>
    call('POST', `/expert/${username}/tagline`, token, { tagline })
  const tagline = async (username: string) => {
    const response = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}/tagline`,
      headers: ctx.tenant.auth,
    })
    return records(record(envelope(response).data).tagline)[0]?.tagline
  }
  const auditEntries = async (query = '') => {
    const response = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/audit?page_size=50${query}`,
      headers: ctx.tenant.auth,
    })
    assert.equal(response.statusCode, 200, response.body)
    return records(record(envelope(response).data).entries)
  }
  const errorOf = (response: LightMyRequestResponse, status: number) => {
    assert.equal(response.statusCode, status, response.body)
    return envelope(response).error
  }

  before(async () => {
    ada = await createExpert(ctx, ctx.tenant, { firstname: 'Ada', lastname: 'Okafor' })
    ben = await createExpert(ctx, ctx.tenant, { firstname: 'Ben', lastname: 'Ito' })
    cy = await createExpert(ctx, ctx.tenant, { firstname: 'Cy', lastname: 'Lund' })
    adaPerson = await personToken(ctx, ctx.tenant.orgId, 'expert', { expert: ada })
    benPerson = await personToken(ctx, ctx.tenant.orgId, 'expert', { expert: ben })
    desk = await personToken(ctx, ctx.tenant.orgId, 'inquiries')
    editor = await personToken(ctx, ctx.tenant.orgId, 'editor')
  })

  test('a delegate edits the profile as its expert could, and the audit log says for whom', async () => {
    assert.equal((await setTagline(ada, benPerson.token, 'Before the grant')).statusCode, 403)
    const granted = await grant(ada, adaPerson.token, benPerson.id)
    assert.equal(granted.statusCode, 200, granted.body)
    assert.deepEqual(envelope(granted).data, {
      person: benPerson.id,
      until: seconds() + hour,
      created: true,
    })

    const edited = await setTagline(ada, benPerson.token, 'Written by a delegate')
    assert.equal(edited.statusCode, 200, edited.body)
    assert.equal(await tagline(ada), 'Written by a delegate')
    const account = await call('PUT', `/expert/${ada}`, benPerson.token, { job_title: 'Chair' })
    assert.equal(account.statusCode, 200, account.body)
    const photo = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${ada}/avatar`,
      headers: { ...bearer(benPerson.token), 'content-type': 'image/jpeg' },
      payload: await testImage('jpeg', 240, 240),
    })
    assert.equal(photo.statusCode, 200, photo.body)
    // Its own profile still works as before.
    assert.equal((await setTagline(ben, benPerson.token, 'My own')).statusCode, 200)

    const [latest] = await auditEntries()
    assert.deepEqual(record(latest).actor, {
      kind: 'person',
      id: String(benPerson.id),
      name: record(record(latest).actor).name,
    })
    assert.deepEqual(record(latest).on_behalf_of, null, 'its own profile: no delegation')
    const forAda = (await auditEntries(`&kind=expert&record=${ada}`)).filter(
      (entry) => record(entry.actor).id === String(benPerson.id),
    )
    assert.equal(forAda.length, 3)
    for (const entry of forAda)
      assert.deepEqual(entry.on_behalf_of, { username: ada, name: 'Ada Okafor' }, JSON.stringify(entry))

    const listed = await call('GET', `/expert/${ada}/delegates`, adaPerson.token)
    assert.equal(listed.statusCode, 200, listed.body)
    const [delegate] = records(record(envelope(listed).data).delegates)
    assert.equal(record(record(delegate).person).id, benPerson.id)
    assert.equal(record(delegate).until, seconds() + hour)
  })

  test('a delegate gets nothing more than editing that profile', async () => {
    await grant(ada, adaPerson.token, benPerson.id)
    const refused: [Method, string, object?][] = [
      ['POST', `/expert/${cy}/tagline`, { tagline: 'Not granted' }],
      ['DELETE', `/expert/${ada}`],
      ['POST', `/expert/${ada}/delegates`, { person: desk.id, until: seconds() + hour }],
      ['GET', `/expert/${ada}/delegates`],
      ['DELETE', `/expert/${ada}/delegates/${benPerson.id}`],
      ['GET', `/inquiry?username=${ada}`],
      ['GET', '/people'],
    ]
    for (const [method, url, payload] of refused) {
      const response = await call(method, url, benPerson.token, payload)
      assert.equal(response.statusCode, 403, `${method} ${url}: ${response.body}`)
    }
    // Another organization's path stays refused, grant or not.
    const other = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${ctx.other.orgId}/expert/${ada}/tagline`,
      headers: bearer(benPerson.token),
      payload: { tagline: 'x' },
    })
    assert.equal(other.statusCode, 403, other.body)
  })

  test('a person whose role cannot write edits only the profile it was granted', async () => {
    assert.equal((await setTagline(ada, desk.token, 'Not yet')).statusCode, 403)
    assert.equal((await grant(ada, editor.token, desk.id)).statusCode, 200)
    assert.equal((await setTagline(ada, desk.token, 'By the desk')).statusCode, 200)
    assert.equal(await tagline(ada), 'By the desk')
    assert.equal((await setTagline(cy, desk.token, 'Elsewhere')).statusCode, 403)
    const post = await ctx.inject({
      method: 'POST',
      url: `/v2/spotlight/${ctx.tenant.orgId}`,
      headers: bearer(desk.token),
      payload: { title: 'A post', html: '<p>x</p>' },
    })
    assert.equal(post.statusCode, 403, post.body)
  })

  test('a revoke takes effect on the very next request', async () => {
    const person = await personToken(ctx, ctx.tenant.orgId, 'inquiries')
    assert.equal((await grant(ben, benPerson.token, person.id)).statusCode, 200)
    assert.equal((await setTagline(ben, person.token, 'Granted')).statusCode, 200)
    const revoked = await call('DELETE', `/expert/${ben}/delegates/${person.id}`, benPerson.token)
    assert.equal(revoked.statusCode, 200, revoked.body)
    assert.deepEqual(envelope(revoked).data, { person: person.id, deleted: true })
    assert.equal((await setTagline(ben, person.token, 'Revoked')).statusCode, 403)
    assert.equal(await tagline(ben), 'Granted')
    const again = await call('DELETE', `/expert/${ben}/delegates/${person.id}`, benPerson.token)
    errorOf(again, 404)
    const [entry] = await auditEntries(`&kind=delegate`)
    assert.match(String(record(entry).summary), /^Ended the rights of .+ to edit the profile of Ben Ito$/)
  })

  test('nobody grants what it does not hold, and bad grants are 400 naming the field', async () => {
    // An expert person grants only on its own profile; a person without write grants nothing.
    errorOf(await grant(ben, adaPerson.token, desk.id), 403)
    errorOf(await grant(ada, desk.token, editor.id), 403)
    const cases: [string, number, number, string][] = [
      ['yourself', adaPerson.id, seconds() + hour, 'person'],
      ['the profile’s own person', adaPerson.id, seconds() + hour, 'person'],
      ['an unknown person', 987_654, seconds() + hour, 'person'],
      ['a time in the past', benPerson.id, seconds() - 1, 'until'],
      ['now', benPerson.id, seconds(), 'until'],
    ]
    for (const [what, person, until, field] of cases) {
      const token = what === 'the profile’s own person' ? editor.token : adaPerson.token
      const error = errorOf(await grant(ada, token, person, until), 400)
      assert.equal(error?.code, 'validation_failed', what)
      assert.deepEqual(
        error?.details?.map((detail) => detail.field),
        [field],
        what,
      )
    }
    const stranger = await personToken(ctx, ctx.other.orgId, 'editor')
    const error = errorOf(await grant(ada, adaPerson.token, stranger.id), 400)
    assert.equal(error?.details?.[0]?.field, 'person')
    errorOf(await grant('nobody-here', editor.token, benPerson.id), 404)
    const client = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${cy}/delegates`,
      headers: ctx.tenant.auth,
      payload: { person: desk.id, until: seconds() + hour },
    })
    assert.equal(client.statusCode, 200, client.body)
  })

  test('the command line grants and revokes, and the audit log says so', async () => {
    const person = await personToken(ctx, ctx.tenant.orgId, 'inquiries')
    const until = Math.floor(Date.now() / 1000) + hour
    const org = String(ctx.tenant.orgId)
    const common = ['--org', org, '--expert', cy, '--email', person.email, '--json']
    const cli = (args: string[]) => runCli(['--db', ctx.testDatabase.url, 'people', ...args])
    const granted = await cli(['delegate', ...common, '--until', String(until)])
    assert.equal(granted.code, 0, granted.stderr)
    assert.deepEqual(JSON.parse(granted.stdout), {
      person: person.id,
      email: person.email,
      expert: cy,
      until,
    })
    assert.equal((await setTagline(cy, person.token, 'Through the command line')).statusCode, 200)
    const revoked = await cli(['undelegate', ...common])
    assert.equal(revoked.code, 0, revoked.stderr)
    assert.equal((await setTagline(cy, person.token, 'No more')).statusCode, 403)
    const again = await cli(['undelegate', ...common])
    assert.notEqual(again.code, 0)
    const [latest] = await auditEntries('&kind=delegate')
    assert.deepEqual(record(latest).actor, { kind: 'cli', id: null, name: null })
    assert.match(String(record(latest).summary), /^Ended the rights of /)
  })

  // Last: it moves the clock past the other tokens' lifetime.
  test('a grant ends at its time, with no request in between needed', async () => {
    const person = await personToken(ctx, ctx.tenant.orgId, 'expert', { expert: cy })
    assert.equal((await grant(ben, benPerson.token, person.id, seconds() + 600)).statusCode, 200)
    assert.equal((await setTagline(ben, person.token, 'In time')).statusCode, 200)
    ctx.clock.advance(599_000)
    const fresh = await dashboardToken(ctx, person.cookie)
    assert.equal((await setTagline(ben, fresh, 'Still in time')).statusCode, 200)
    ctx.clock.advance(1000)
    const late = await setTagline(ben, fresh, 'Too late')
    assert.equal(late.statusCode, 403, late.body)
    assert.equal(await tagline(ben), 'Still in time')
    const listed = await call('GET', `/expert/${ben}/delegates`, await dashboardToken(ctx, benPerson.cookie))
    assert.deepEqual(record(envelope(listed).data).delegates, [])
  })
})
