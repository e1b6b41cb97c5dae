import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { createClient } from '../src/auth/clients.js'
import { publishDueDrafts } from '../src/drafts/service.js'
import { createPublishingSchedule } from '../src/schedules/loop.js'
import { createExpert, describeEachDialect, openSecondApp, requestToken } from './helpers/harness.js'
import { mailText } from './helpers/mail-text.js'
import { personToken } from './helpers/people.js'
import { SmtpReceiver } from './helpers/receivers.js'

/** Runs of the state-machine property per dialect. */
const PROPERTY_RUNS = 8

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

type Json = Record<string, unknown>

interface Answer {
  status: number
  /** The envelope's `data` (an object; empty for an error). */
  data: Json
  /** The envelope's error message ('' for a success). */
  message: string
  errorCode: string
  raw: LightMyRequestResponse
}

const isJson = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const objectAt = (value: unknown): Json => (isJson(value) ? value : {})
const listAt = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isJson) : [])
const idsOf = (value: unknown): unknown[] => listAt(value).map((element) => element.id)

/**
 * Drafts and review (CONTRACT §21): a write that needs review is a draft beside the live record; the
 * author submits it, a reviewer approves it (published through the ordinary write, once) or returns it;
 * a live change meanwhile is kept and shown as a conflict; a restore never bypasses review.
 */
describeEachDialect('drafts: review of expert changes, approval, conflicts', (ctx) => {
  const org = () => ctx.tenant.orgId
  const base = (orgId = org()) => `/v2/organization/${orgId}`

  async function call(token: string, method: Method, url: string, body?: unknown): Promise<Answer> {
    const raw = await ctx.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined
        ? {}
        : {
            payload: JSON.stringify(body),
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          }),
    })
    const envelope: unknown = raw.json()
    const error = objectAt(objectAt(envelope).error)
    return {
      status: raw.statusCode,
      data: objectAt(objectAt(envelope).data),
      message: String(error.message ?? ''),
      errorCode: String(error.code ?? ''),
      raw,
    }
  }
  const admin = () => ctx.tenant.token

  async function setReview(roles: string[], sections: string[] | null, orgId = org(), token = admin()) {
    const answer = await call(token, 'PUT', `${base(orgId)}/workflow`, {
      review: { roles, sections },
      gate: { photo_min_px: null, tagline_max: null, biography_max: null, topics_min: null },
    })
    assert.equal(answer.status, 200, answer.raw.body)
  }

  async function tokenWith(scopes: ('read' | 'read:public' | 'write')[]): Promise<string> {
    const { db } = ctx.testDatabase.database
    const client = await createClient(db, org(), `only ${scopes.join(' ')}`, ctx.clock.now(), scopes)
    return requestToken(ctx.app, client)
  }

  /** An expert, its own person's token, and an editor's. */
  async function cast(): Promise<{
    username: string
    expert: string
    expertId: number
    editor: string
    editorId: number
  }> {
    const username = await createExpert(ctx, ctx.tenant, { job_title: 'Geologist' })
    const expert = await personToken(ctx, org(), 'expert', { expert: username })
    const editor = await personToken(ctx, org(), 'editor')
    return { username, expert: expert.token, expertId: expert.id, editor: editor.token, editorId: editor.id }
  }

  const account = async (username: string, token = admin()) => {
    const answer = await call(token, 'GET', `${base()}/expert/${username}`)
    assert.equal(answer.status, 200, answer.raw.body)
    return listAt(answer.data.account)[0] ?? {}
  }

  const draftId = (answer: Answer): number => {
    assert.equal(answer.status, 202, answer.raw.body)
    const draft = objectAt(answer.data.draft)
    assert.equal(draft.state, 'open')
    assert.equal(typeof draft.id, 'number')
    return Number(draft.id)
  }

  test.before(async () => {
    await setReview(['expert'], null)
  })

  test("an expert's own change is a draft (202); the live profile is unchanged until an editor approves it", async () => {
    const { username, expert, editor, expertId, editorId } = await cast()
    const first = draftId(
      await call(expert, 'PUT', `${base()}/expert/${username}`, { job_title: 'Chief geologist' }),
    )
    const second = draftId(
      await call(expert, 'PUT', `${base()}/expert/${username}`, { department: 'Rivers' }),
    )
    assert.equal(second, first, 'further writes add to the same draft')
    assert.equal((await account(username)).job_title, 'Geologist')
    const versionsBefore = await call(admin(), 'GET', `${base()}/expert/${username}/versions`)

    const read = await call(expert, 'GET', `${base()}/drafts/${first}`)
    assert.equal(read.status, 200, read.raw.body)
    const fields = listAt(read.data.diff)
      .map((change) => String(change.field))
      .sort()
    assert.deepEqual(fields, ['department', 'job_title'])
    assert.equal(read.data.conflict, false)

    // Not submitted yet: not approvable.
    assert.equal((await call(editor, 'POST', `${base()}/drafts/${first}/approve`, {})).status, 409)
    const submitted = await call(expert, 'POST', `${base()}/drafts/${first}/submit`)
    assert.equal(submitted.status, 200, submitted.raw.body)
    assert.equal(submitted.data.state, 'submitted')
    // The expert cannot approve; the editor can.
    assert.equal((await call(expert, 'POST', `${base()}/drafts/${first}/approve`, {})).status, 403)
    const approved = await call(editor, 'POST', `${base()}/drafts/${first}/approve`, {})
    assert.equal(approved.status, 200, approved.raw.body)
    assert.equal(approved.data.state, 'published')
    assert.deepEqual(approved.data.reviewer, { kind: 'person', id: String(editorId) })
    const author = objectAt(approved.data.author)
    assert.equal(author.id, expertId)
    assert.equal(typeof author.name, 'string')
    assert.equal(author.delegate, false, "the profile's own person is no delegate")
    assert.equal(typeof objectAt(approved.data.record).title, 'string')
    const live = await account(username)
    assert.equal(live.job_title, 'Chief geologist')
    assert.equal(live.department, 'Rivers')
    // The approval kept a version naming the reviewer, with the draft's author in its action.
    const versions = await call(admin(), 'GET', `${base()}/expert/${username}/versions`)
    const list = listAt(versions.data.versions)
    assert.equal(list.length, listAt(versionsBefore.data.versions).length + 1)
    assert.equal(objectAt(list[0]?.actor).id, String(editorId))
    assert.match(String(list[0]?.action), new RegExp(`draft ${first} by person ${expertId}`))
    // A published draft is no longer in the queue.
    const queue = await call(editor, 'GET', `${base()}/drafts`)
    assert.ok(!idsOf(queue.data.drafts).includes(first))
  })

  test('sections: only the covered ones need review; added, changed and deleted elements publish on approval', async () => {
    const { username, expert, editor } = await cast()
    const added = await call(admin(), 'POST', `${base()}/expert/${username}/education`, {
      institution: 'Delft',
    })
    const existing = added.data.id
    await setReview(['expert'], ['education'])
    try {
      const liveWrite = await call(expert, 'PUT', `${base()}/expert/${username}`, { job_title: 'Dean' })
      assert.equal(liveWrite.status, 200, 'account is not covered: written live')
      const id = draftId(
        await call(expert, 'POST', `${base()}/expert/${username}/education`, { institution: 'Leiden' }),
      )
      draftId(
        await call(expert, 'PUT', `${base()}/expert/${username}/education/${existing}`, {
          institution: 'TU Delft',
        }),
      )
      const section = await call(admin(), 'GET', `${base()}/expert/${username}/education`)
      assert.deepEqual(
        listAt(section.data.education).map((element) => element.institution),
        ['Delft'],
      )
      assert.equal((await call(expert, 'POST', `${base()}/drafts/${id}/submit`)).status, 200)
      const approved = await call(editor, 'POST', `${base()}/drafts/${id}/approve`, {})
      assert.equal(approved.status, 200, approved.raw.body)
      const after = await call(admin(), 'GET', `${base()}/expert/${username}/education`)
      const elements = listAt(after.data.education)
      assert.deepEqual(
        elements.map((element) => element.institution),
        ['TU Delft', 'Leiden'],
      )
      assert.equal(elements[0]?.id, existing)
      // A delete is a draft too.
      const removal = draftId(
        await call(expert, 'DELETE', `${base()}/expert/${username}/education/${existing}`),
      )
      assert.notEqual(removal, id)
      const education = await call(admin(), 'GET', `${base()}/expert/${username}/education`)
      assert.equal(listAt(education.data.education).length, 2)
    } finally {
      await setReview(['expert'], null)
    }
  })

  test('return sends the draft back with its comment; the author changes it and submits again', async () => {
    const { username, expert, editor } = await cast()
    const id = draftId(await call(expert, 'PUT', `${base()}/expert/${username}`, { job_title: 'Wizard' }))
    await call(expert, 'POST', `${base()}/drafts/${id}/submit`)
    const missing = await call(editor, 'POST', `${base()}/drafts/${id}/return`, {})
    assert.equal(missing.status, 400, missing.raw.body)
    assert.equal(missing.errorCode, 'validation_failed')
    const returned = await call(editor, 'POST', `${base()}/drafts/${id}/return`, {
      comment: 'Use your real title.',
    })
    assert.equal(returned.status, 200, returned.raw.body)
    assert.equal(returned.data.state, 'returned')
    assert.equal(returned.data.comment, 'Use your real title.')
    const mine = await call(expert, 'GET', `${base()}/drafts?state=returned`)
    assert.deepEqual(
      listAt(mine.data.drafts).map((draft) => draft.id),
      [id],
    )
    assert.equal(
      draftId(await call(expert, 'PUT', `${base()}/expert/${username}`, { job_title: 'Geochemist' })),
      id,
    )
    assert.equal((await call(expert, 'POST', `${base()}/drafts/${id}/submit`)).status, 200)
    assert.equal((await call(editor, 'POST', `${base()}/drafts/${id}/approve`, {})).status, 200)
    assert.equal((await account(username)).job_title, 'Geochemist')
  })

  test('an editor listed in review.roles writes drafts, and no one approves their own', async () => {
    const { username, editor } = await cast()
    const other = await personToken(ctx, org(), 'editor')
    await setReview(['expert', 'editor'], null)
    try {
      const id = draftId(await call(editor, 'PUT', `${base()}/expert/${username}`, { job_title: 'Dean' }))
      await call(editor, 'POST', `${base()}/drafts/${id}/submit`)
      assert.equal((await call(editor, 'POST', `${base()}/drafts/${id}/approve`, {})).status, 403)
      assert.equal((await call(other.token, 'POST', `${base()}/drafts/${id}/approve`, {})).status, 200)
      // An API client is the organization's integration: never reviewed.
      const live = await call(admin(), 'PUT', `${base()}/expert/${username}`, { job_title: 'Provost' })
      assert.equal(live.status, 200, live.raw.body)
    } finally {
      await setReview(['expert'], null)
    }
  })

  test("a delegate's draft says it was written as the profile's delegate; the queue names the author and the profile", async () => {
    const { username, editor } = await cast()
    const ownerOf = await personToken(ctx, org(), 'expert', { expert: username })
    const delegate = await personToken(ctx, org(), 'expert', {
      expert: await createExpert(ctx, ctx.tenant, { firstname: 'Dana', lastname: 'Assistant' }),
    })
    const until = Math.floor(ctx.clock.now() / 1000) + 3600
    const granted = await call(ownerOf.token, 'POST', `${base()}/expert/${username}/delegates`, {
      person: delegate.id,
      until,
    })
    assert.equal(granted.status, 200, granted.raw.body)
    const id = draftId(
      await call(delegate.token, 'PUT', `${base()}/expert/${username}`, { job_title: 'Written for' }),
    )
    const own = draftId(
      await call(ownerOf.token, 'PUT', `${base()}/expert/${username}`, { job_title: 'Written myself' }),
    )
    const queue = listAt((await call(editor, 'GET', `${base()}/drafts?state=open`)).data.drafts)
    const byId = (wanted: number) => queue.find((draft) => draft.id === wanted) ?? {}
    const people = await ctx.testDatabase.database.db
      .selectFrom('people')
      .select(['id', 'name'])
      .where('org_id', '=', org())
      .execute()
    const nameOf = (personId: number) => people.find((person) => Number(person.id) === personId)?.name
    assert.deepEqual(objectAt(byId(id).author), {
      id: delegate.id,
      name: nameOf(delegate.id),
      delegate: true,
    })
    assert.deepEqual(objectAt(byId(own).author), {
      id: ownerOf.id,
      name: nameOf(ownerOf.id),
      delegate: false,
    })
    const record = objectAt(byId(id).record)
    assert.equal(record.username, username)
    const live = await account(username)
    assert.equal(record.title, `${String(live.firstname)} ${String(live.lastname)}`)
  })

  test('an expert sees only its own drafts; read:public sees none; another organization reaches none', async () => {
    const one = await cast()
    const two = await cast()
    await call(admin(), 'PUT', `${base()}/expert/${one.username}`, { is_published: 1 })
    const a = draftId(await call(one.expert, 'PUT', `${base()}/expert/${one.username}`, { job_title: 'A' }))
    const b = draftId(await call(two.expert, 'PUT', `${base()}/expert/${two.username}`, { job_title: 'B' }))
    const mine = await call(one.expert, 'GET', `${base()}/drafts?state=open`)
    const ids = idsOf(mine.data.drafts)
    assert.ok(ids.includes(a) && !ids.includes(b))
    assert.equal((await call(one.expert, 'GET', `${base()}/drafts/${b}`)).status, 404)
    const all = await call(one.editor, 'GET', `${base()}/drafts?state=open`)
    const allIds = idsOf(all.data.drafts)
    assert.ok(allIds.includes(a) && allIds.includes(b))
    const publicToken = await tokenWith(['read:public'])
    assert.equal((await call(publicToken, 'GET', `${base()}/drafts`)).status, 403)
    assert.equal((await call(publicToken, 'GET', `${base()}/drafts/${a}`)).status, 403)
    const publicProfile = await call(publicToken, 'GET', `${base()}/expert/${one.username}`)
    assert.equal(publicProfile.status, 200)
    assert.ok(!publicProfile.raw.body.includes('"A"'))
    // The other organization's client, in its own organization: no such draft.
    const foreign = await call(ctx.other.token, 'GET', `${base(ctx.other.orgId)}/drafts/${a}`)
    assert.equal(foreign.status, 404, foreign.raw.body)
    const foreignList = await call(ctx.other.token, 'GET', `${base(ctx.other.orgId)}/drafts`)
    assert.deepEqual(foreignList.data.drafts, [])
    assert.ok([403, 404].includes((await call(ctx.other.token, 'GET', `${base()}/drafts/${a}`)).status))
  })

  test('a restore by an expert whose changes need review is a draft, never a live change', async () => {
    const { username, expert, editor } = await cast()
    await call(admin(), 'PUT', `${base()}/expert/${username}`, { job_title: 'Volcanologist' })
    const versions = await call(admin(), 'GET', `${base()}/expert/${username}/versions`)
    const list = listAt(versions.data.versions)
    const first = list.at(-1)
    assert.ok(first)
    const id = draftId(
      await call(expert, 'POST', `${base()}/expert/${username}/versions/${first.id}/restore`),
    )
    assert.equal((await account(username)).job_title, 'Volcanologist')
    await call(expert, 'POST', `${base()}/drafts/${id}/submit`)
    assert.equal((await call(editor, 'POST', `${base()}/drafts/${id}/approve`, {})).status, 200)
    assert.equal((await account(username)).job_title, 'Geologist')
  })

  test('deleting an expert takes its waiting drafts with it: nothing is left to approve', async () => {
    const { username, expert, editor } = await cast()
    const id = draftId(await call(expert, 'PUT', `${base()}/expert/${username}`, { job_title: 'Gone soon' }))
    assert.equal((await call(expert, 'POST', `${base()}/drafts/${id}/submit`)).status, 200)
    assert.equal((await call(admin(), 'DELETE', `${base()}/expert/${username}`)).status, 200)
    assert.equal((await call(editor, 'GET', `${base()}/drafts/${id}`)).status, 404)
    const queue = await call(editor, 'GET', `${base()}/drafts?state=submitted`)
    assert.equal(queue.status, 200, queue.raw.body)
    assert.ok(!JSON.stringify(queue.data).includes(`"id":${id},`), 'the queue no longer lists it')
  })

  test('a live change while a draft waits is kept; the draft shows the conflict; approval needs force', async () => {
    const { username, expert, editor } = await cast()
    const id = draftId(
      await call(expert, 'PUT', `${base()}/expert/${username}`, { job_title: 'Chief geologist' }),
    )
    await call(expert, 'POST', `${base()}/drafts/${id}/submit`)
    const live = await call(admin(), 'PUT', `${base()}/expert/${username}`, { department: 'Volcanoes' })
    assert.equal(live.status, 200)
    const read = await call(editor, 'GET', `${base()}/drafts/${id}`)
    assert.equal(read.data.conflict, true)
    assert.deepEqual(
      listAt(read.data.live_changes).map((change) => [change.field, change.after]),
      [['department', 'Volcanoes']],
    )
    const refused = await call(editor, 'POST', `${base()}/drafts/${id}/approve`, {})
    assert.equal(refused.status, 409, refused.raw.body)
    assert.match(refused.message, /department/)
    assert.equal((await account(username)).job_title, 'Geologist')
    const forced = await call(editor, 'POST', `${base()}/drafts/${id}/approve`, { force: true })
    assert.equal(forced.status, 200, forced.raw.body)
    const after = await account(username)
    assert.equal(after.job_title, 'Chief geologist')
    assert.equal(after.department, 'Volcanoes', 'the live change is kept')
  })

  test('the publish gate refuses an approval that would publish an incomplete profile; the draft stays submitted', async () => {
    const { username, expert, editor } = await cast()
    await call(admin(), 'PUT', `${base()}/expert/${username}`, { is_published: 0 })
    const gate = { photo_min_px: null, tagline_max: null, biography_max: null, topics_min: 3 }
    await call(admin(), 'PUT', `${base()}/workflow`, { review: { roles: ['expert'], sections: null }, gate })
    try {
      const id = draftId(await call(expert, 'PUT', `${base()}/expert/${username}`, { is_published: 1 }))
      await call(expert, 'POST', `${base()}/drafts/${id}/submit`)
      const refused = await call(editor, 'POST', `${base()}/drafts/${id}/approve`, {})
      assert.equal(refused.status, 409, refused.raw.body)
      assert.match(refused.message, /topic/)
      assert.equal((await call(editor, 'GET', `${base()}/drafts/${id}`)).data.state, 'submitted')
    } finally {
      await setReview(['expert'], null)
    }
  })

  test('two reviewers approving at once, in two app instances, publish the draft once', async () => {
    const { username, expert, editor } = await cast()
    const second = await personToken(ctx, org(), 'editor')
    const id = draftId(await call(expert, 'PUT', `${base()}/expert/${username}`, { job_title: 'Dean' }))
    await call(expert, 'POST', `${base()}/drafts/${id}/submit`)
    const before = listAt((await call(admin(), 'GET', `${base()}/expert/${username}/versions`)).data.versions)
    const other = await openSecondApp(ctx)
    try {
      const approve = (app: typeof ctx.app, token: string) =>
        app.inject({
          method: 'POST',
          url: `${base()}/drafts/${id}/approve`,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          payload: '{}',
        })
      const answers = await Promise.all([approve(ctx.app, editor), approve(other.app, second.token)])
      const statuses = answers.map((answer) => answer.statusCode).sort()
      assert.deepEqual(statuses, [200, 409], answers.map((answer) => answer.body).join('\n'))
    } finally {
      await other.close()
    }
    const after = listAt((await call(admin(), 'GET', `${base()}/expert/${username}/versions`)).data.versions)
    assert.equal(after.length, before.length + 1)
  })

  test('reviewers are emailed when a draft is submitted; the author when it is returned (with the comment) and approved', async () => {
    const { username, expert, editor } = await cast()
    const smtp = new SmtpReceiver()
    await smtp.start()
    const mailing = await openSecondApp(ctx, { smtpUrl: smtp.url, publicUrl: 'https://experts.example.edu' })
    try {
      const send = async (token: string, url: string, body: unknown = {}) => {
        const response = await mailing.app.inject({
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        })
        assert.equal(response.statusCode, 200, response.body)
      }
      const people = await ctx.testDatabase.database.db
        .selectFrom('people')
        .select(['email', 'role', 'id'])
        .where('org_id', '=', org())
        .execute()
      const reviewers = people.filter((person) => ['owner', 'admin', 'editor'].includes(person.role))
      const author = people.find((person) => person.role === 'expert' && person.email.length > 0)
      const id = draftId(await call(expert, 'PUT', `${base()}/expert/${username}`, { job_title: 'Dean' }))
      await send(expert, `${base()}/drafts/${id}/submit`)
      const [submitted] = await smtp.received(1)
      assert.deepEqual(
        [...(submitted?.to ?? [])].sort(),
        reviewers.map((person) => person.email.toLowerCase()).sort(),
      )
      assert.match(mailText(submitted?.raw ?? ''), /waits for your review/)
      assert.match(mailText(submitted?.raw ?? ''), /https:\/\/experts\.example\.edu\/admin\//)
      await send(editor, `${base()}/drafts/${id}/return`, { comment: 'Add your department.' })
      const returned = (await smtp.received(2))[1]
      assert.ok(author)
      assert.equal(returned?.to.length, 1)
      assert.match(mailText(returned?.raw ?? ''), /Add your department\./)
      await send(expert, `${base()}/drafts/${id}/submit`)
      await send(editor, `${base()}/drafts/${id}/approve`)
      // Each step's email is sent in the background once it committed: they may arrive in any order.
      const approved = (await smtp.received(4)).find((mail) =>
        /approved and published/.test(mailText(mail.raw)),
      )
      assert.ok(approved)
      assert.deepEqual(approved?.to, returned?.to)
    } finally {
      await mailing.close()
      await smtp.stop()
    }
  })

  test('an approval with publish_at publishes the draft at that time, once, though two processes run the schedule', async () => {
    const { username, expert, editor } = await cast()
    const id = draftId(
      await call(expert, 'PUT', `${base()}/expert/${username}`, { job_title: 'Embargoed title' }),
    )
    await call(expert, 'POST', `${base()}/drafts/${id}/submit`)
    const at = Math.floor(ctx.clock.now() / 1000) + 3600
    const approved = await call(editor, 'POST', `${base()}/drafts/${id}/approve`, { publish_at: at })
    assert.equal(approved.status, 200, approved.raw.body)
    assert.equal(approved.data.state, 'approved')
    assert.equal(approved.data.publish_at, at)
    const versions = async () =>
      listAt((await call(admin(), 'GET', `${base()}/expert/${username}/versions`)).data.versions).length
    const before = await versions()
    const { db } = ctx.testDatabase.database
    const failures: unknown[] = []
    // The publishing schedule's pass, which carries out the records' times and the drafts' alike.
    const pass = (database: typeof db) =>
      createPublishingSchedule({
        db: database,
        now: ctx.clock.now,
        log: { warn: (object) => failures.push(object) },
      }).runOnce()
    await pass(db)
    assert.equal((await account(username)).job_title, 'Geologist', 'not before its time')
    ctx.clock.advance(3600 * 1000)
    // PostgreSQL: two processes' connections at once. SQLite's writers wait for each other synchronously,
    // which two handles in one event loop cannot do: the two passes share one there.
    const other = ctx.dialect === 'postgres' ? await openSecondApp(ctx) : undefined
    try {
      await Promise.all([pass(db), pass(other ? other.database.db : db)])
    } finally {
      await other?.close()
    }
    assert.deepEqual(failures, [])
    assert.equal((await account(username)).job_title, 'Embargoed title')
    assert.equal(await versions(), before + 1)
    const published = await call(admin(), 'GET', `${base()}/drafts/${id}`)
    ctx.clock.advance(-3600 * 1000)
    assert.equal(published.data.state, 'published', published.raw.body)
  })

  test('a scheduled draft that can no longer be published goes back to submitted with the reason', async () => {
    const { username, expert, editor } = await cast()
    const id = draftId(
      await call(expert, 'PUT', `${base()}/expert/${username}`, { job_title: 'Later title' }),
    )
    await call(expert, 'POST', `${base()}/drafts/${id}/submit`)
    const at = Math.floor(ctx.clock.now() / 1000) + 60
    assert.equal(
      (await call(editor, 'POST', `${base()}/drafts/${id}/approve`, { publish_at: at })).status,
      200,
    )
    await call(admin(), 'PUT', `${base()}/expert/${username}`, { job_title: 'Changed live' })
    ctx.clock.advance(60 * 1000)
    await publishDueDrafts(ctx.testDatabase.database.db, ctx.clock.now(), 20, (error) =>
      assert.fail(String(error)),
    )
    const read = await call(admin(), 'GET', `${base()}/drafts/${id}`)
    ctx.clock.advance(-60 * 1000)
    assert.equal(read.data.state, 'submitted')
    assert.match(String(read.data.comment), /changed live/)
    assert.equal((await account(username)).job_title, 'Changed live')
  })

  test('property: no sequence of writes, submits, returns, restores and approvals publishes an unapproved change', async () => {
    const { username, expert, editor } = await cast()
    const titles = ['Geologist', 'Dean', 'Provost', 'Wizard']
    const step = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), title: fc.constantFrom(...titles) }),
      fc.record({ kind: fc.constant('submit' as const) }),
      fc.record({ kind: fc.constant('return' as const) }),
      fc.record({ kind: fc.constant('approve' as const), force: fc.boolean() }),
      fc.record({ kind: fc.constant('restore' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('live' as const), title: fc.constantFrom(...titles) }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        for (const action of steps) {
          const before = (await account(username)).job_title
          const queue = await call(editor, 'GET', `${base()}/drafts`)
          const waiting = listAt(queue.data.drafts).filter(
            (draft) => objectAt(draft.record).username === username,
          )
          const current = waiting.at(-1)
          const proposed = current
            ? listAt((await call(editor, 'GET', `${base()}/drafts/${String(current.id)}`)).data.diff)
            : []
          let answer: Answer | undefined
          if (action.kind === 'write')
            answer = await call(expert, 'PUT', `${base()}/expert/${username}`, { job_title: action.title })
          else if (action.kind === 'live')
            answer = await call(admin(), 'PUT', `${base()}/expert/${username}`, { job_title: action.title })
          else if (action.kind === 'restore') {
            const versions = listAt(
              (await call(admin(), 'GET', `${base()}/expert/${username}/versions`)).data.versions,
            )
            const version = versions[action.pick % versions.length]
            if (version)
              answer = await call(
                expert,
                'POST',
                `${base()}/expert/${username}/versions/${String(version.id)}/restore`,
              )
          } else if (current && action.kind === 'submit')
            answer = await call(expert, 'POST', `${base()}/drafts/${String(current.id)}/submit`)
          else if (current && action.kind === 'return')
            answer = await call(editor, 'POST', `${base()}/drafts/${String(current.id)}/return`, {
              comment: 'No.',
            })
          else if (current && action.kind === 'approve')
            answer = await call(editor, 'POST', `${base()}/drafts/${String(current.id)}/approve`, {
              force: action.force,
            })
          const after = (await account(username)).job_title
          if (answer) assert.ok(answer.status < 500, answer.raw.body)
          if (action.kind === 'write' || action.kind === 'restore') {
            if (answer) assert.equal(answer.status, 202, answer.raw.body)
            assert.equal(after, before, 'an expert write or restore never changes the live profile')
          } else if (action.kind === 'approve' && answer?.status === 200) {
            const title = proposed.find((change) => change.field === 'job_title')
            if (title) assert.equal(after, title.after)
            else assert.equal(after, before)
          } else if (action.kind !== 'live') assert.equal(after, before)
        }
      }),
      { numRuns: PROPERTY_RUNS },
    )
  })
})
