import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Type } from 'typebox'
import { toInquiryInput } from '../src/inquiries/schemas.js'
import { createInquiry } from '../src/inquiries/service.js'
import { createOrganization } from '../src/organizations/repository.js'
import { runCli, runCliProcess, spawnCli, waitForOutput } from './helpers/cli.js'
import { createTestDatabase, type TestDatabase, testDialects } from './helpers/databases.js'
import { inquiryBody } from './helpers/harness.js'

const TokenAnswer = Type.Object({ data: Type.Object({ accessToken: Type.String() }) })

import { parsed, present } from './helpers/checked.js'

for (const { dialect, skip } of await testDialects()) {
  describe(`CLI on ${dialect}`, { skip }, () => {
    let testDatabase: TestDatabase
    const cli = (...args: string[]) => runCli(['--db', testDatabase.url, ...args])
    before(async () => {
      testDatabase = await createTestDatabase(dialect)
    })
    after(() => testDatabase?.drop())

    test('migrate, org create/list, client create/list/revoke work with --json and revocation kills tokens', async () => {
      const migrated = await cli('migrate', '--json')
      assert.equal(migrated.code, 0, migrated.stderr)
      assert.deepEqual(JSON.parse(migrated.stdout), { applied: [] })

      const org = await cli('org', 'create', '--name', 'Acme Research', '--id', '42', '--json')
      assert.equal(org.code, 0, org.stderr)
      assert.deepEqual(JSON.parse(org.stdout), { id: 42, name: 'Acme Research' })

      const list = await cli('org', 'list', '--json')
      assert.deepEqual(
        JSON.parse(list.stdout).organizations.map((o: { id: number }) => o.id),
        [42],
      )

      const created = await cli('client', 'create', '--org', '42', '--label', 'website', '--json')
      assert.equal(created.code, 0, created.stderr)
      const client = JSON.parse(created.stdout)
      assert.deepEqual(Object.keys(client).sort(), ['client_id', 'client_secret', 'org', 'scope'])
      assert.equal(client.org, 42)
      assert.equal(client.scope, 'read write inquiries:create inquiries:read', 'every scope by default')

      const limited = await cli(
        'client',
        'create',
        '--org',
        '42',
        '--scope',
        'inquiries:create read',
        '--label',
        'site',
        '--json',
      )
      assert.equal(limited.code, 0, limited.stderr)
      assert.equal(JSON.parse(limited.stdout).scope, 'read inquiries:create')

      const clients = JSON.parse((await cli('client', 'list', '--org', '42', '--json')).stdout).clients
      assert.equal(clients.length, 2)
      assert.equal(clients[0].label, 'website')
      assert.equal(clients[0].client_secret, undefined)
      assert.deepEqual(
        clients.map((c: { scope: string }) => c.scope),
        ['read write inquiries:create inquiries:read', 'read inquiries:create'],
      )
      const listed = await cli('client', 'list', '--org', '42')
      assert.match(listed.stdout, /\tread inquiries:create\tsite/)

      const { db } = testDatabase.database
      await db
        .insertInto('access_tokens')
        .values({
          token_hash: 'h'.repeat(64),
          client_id: client.client_id,
          org_id: 42,
          created_at: 0,
          expires_at: Date.now() + 1e6,
        })
        .execute()
      const revoked = await cli('client', 'revoke', client.client_id, '--json')
      assert.equal(revoked.code, 0, revoked.stderr)
      assert.deepEqual(JSON.parse(revoked.stdout), { client_id: client.client_id, revoked: true })
      const tokens = await db
        .selectFrom('access_tokens')
        .selectAll()
        .where('client_id', '=', client.client_id)
        .execute()
      assert.equal(tokens.length, 0)
    })

    test('exit codes: 2 for usage errors, 1 for failed operations', async () => {
      assert.equal((await cli('org', 'create')).code, 2, 'missing --name')
      assert.equal((await cli('client', 'create', '--org', 'abc')).code, 2, 'bad --org')
      const badScope = await cli('client', 'create', '--org', '1', '--scope', 'read superuser')
      assert.equal(badScope.code, 2, 'unknown scope')
      assert.match(badScope.stderr, /unknown scope superuser/)
      assert.equal((await cli('client', 'create', '--org', '1', '--scope', ' ')).code, 2, 'no scope')
      assert.equal((await cli('no-such-command')).code, 2)
      const failed = await cli('client', 'create', '--org', '999999')
      assert.equal(failed.code, 1)
      assert.match(failed.stderr, /No organization 999999/)
      assert.equal((await cli('client', 'revoke', 'cl_nope')).code, 1)
    })

    test("inquiries export and erase by sender: the API's service, recorded, and no sender data left in the database", async () => {
      const { database } = testDatabase
      const { db } = database
      const org = await createOrganization(db, { name: 'Privacy CLI University' }, Date.now())
      const other = await createOrganization(db, { name: 'Privacy CLI Other' }, Date.now())
      const sender = { firstname: 'Wanda', lastname: 'Cliforget', email: 'Wanda.Cliforget@mail.example' }
      const send = async (orgId: number, email: string, message: string) => {
        const body = { ...inquiryBody('general', '', { ...sender, email, message }), username: undefined }
        return (await createInquiry(database, orgId, toInquiryInput('general', body), undefined, Date.now()))
          .id
      }
      const first = await send(org.id, sender.email, 'About Qvw-4411')
      const second = await send(org.id, 'wanda.cliforget@MAIL.example', 'Qvw again')
      const kept = await send(org.id, 'someone@else.example', 'Unrelated')
      const foreign = await send(other.id, sender.email, 'Qvw elsewhere')
      const orgArgs = ['--org', String(org.id)]

      const exported = await cli(
        'inquiries',
        'export',
        ...orgArgs,
        '--email',
        'wanda.cliforget@mail.example',
        '--json',
      )
      assert.equal(exported.code, 0, exported.stderr)
      const inquiries = JSON.parse(exported.stdout).inquiries
      assert.deepEqual(
        inquiries.map((inquiry: { id: number }) => inquiry.id),
        [second, first],
      )
      assert.equal(inquiries[1].fields.message, 'About Qvw-4411')
      const human = await cli('inquiries', 'export', ...orgArgs, '--email', sender.email)
      assert.equal(human.code, 0, human.stderr)
      assert.equal(human.stdout.trim().split('\n').length, 2)
      assert.match(human.stdout, /Qvw-4411/)

      const erased = await cli('inquiries', 'erase', ...orgArgs, '--email', sender.email, '--json')
      assert.equal(erased.code, 0, erased.stderr)
      assert.deepEqual(JSON.parse(erased.stdout), { org: org.id, erased: 2 })
      const rows = await db
        .selectFrom('inquiries')
        .selectAll()
        .where('org_id', '=', org.id)
        .orderBy('id')
        .execute()
      const traces = rows
        .filter((row) => row.id !== kept)
        .map((row) => JSON.stringify(row).toLowerCase())
        .filter((text) => ['wanda', 'cliforget', 'qvw'].some((needle) => text.includes(needle)))
      assert.deepEqual(traces, [], 'no sender data is left in the rows')
      assert.deepEqual(
        rows.map((row) => [row.id, row.kind, row.email, row.redacted_at === null]),
        [
          [first, 'general', '', false],
          [second, 'general', '', false],
          [kept, 'general', 'someone@else.example', true],
        ],
        'the records stay',
      )
      const deliveries = await db
        .selectFrom('inquiry_deliveries')
        .select('status')
        .where('inquiry_id', 'in', [first, second])
        .execute()
      assert.ok(
        deliveries.every((row) => row.status === 'skipped'),
        'pending deliveries are cancelled',
      )
      const untouched = await db
        .selectFrom('inquiries')
        .select('email')
        .where('id', '=', foreign)
        .executeTakeFirst()
      assert.equal(untouched?.email, sender.email, 'another organization is untouched')

      const recorded = await db
        .selectFrom('privacy_requests')
        .select(['action', 'client_id', 'records'])
        .where('org_id', '=', org.id)
        .orderBy('id')
        .execute()
      assert.deepEqual(
        recorded.map((row) => [row.action, row.client_id, Number(row.records)]),
        [
          ['export', 'cli', 2],
          ['export', 'cli', 2],
          ['erase', 'cli', 2],
        ],
      )
      const again = await cli('inquiries', 'erase', ...orgArgs, '--email', sender.email)
      assert.equal(again.code, 0, again.stderr)
      assert.match(again.stdout, /No inquiries from/)

      const badEmail = await cli('inquiries', 'erase', ...orgArgs, '--email', 'not an address')
      assert.equal(badEmail.code, 2)
      assert.match(badEmail.stderr, /--email must be a valid email address/)
      assert.equal((await cli('inquiries', 'export', ...orgArgs)).code, 2, 'missing --email')
      const noOrg = await cli('inquiries', 'erase', '--org', '999999', '--email', sender.email)
      assert.equal(noOrg.code, 1)
      assert.match(noOrg.stderr, /No organization 999999/)
    })

    test('--help prints the commands on stdout and exits 0; an unknown option prints help on stderr', async () => {
      const help = await cli('--help')
      assert.equal(help.code, 0)
      for (const command of [
        'serve',
        'migrate',
        'org',
        'client',
        'import',
        'inquiries',
        'webhook',
        'search',
        'backup',
      ])
        assert.match(help.stdout, new RegExp(`\\n  ${command}\\b`), command)
      const unknown = await cli('org', 'list', '--nope')
      assert.equal(unknown.code, 2)
      assert.match(unknown.stderr, /unknown option '--nope'/)
      assert.equal(unknown.stdout, '')
    })
  })
}

/**
 * The tests above run the CLI in-process; these run the real binary once per command group, for what
 * only a process shows: the entry's wiring of streams, exit codes and a clean exit.
 */
describe('the expertdir binary, once per command group', { concurrency: true }, () => {
  let testDatabase: TestDatabase
  let dir: string
  const cli = (...args: string[]) => runCliProcess(['--db', testDatabase.url, ...args])
  before(async () => {
    testDatabase = await createTestDatabase('sqlite')
    await createOrganization(testDatabase.database.db, { name: 'Smoke' }, Date.now())
    dir = mkdtempSync(join(tmpdir(), 'expertdir-cli-'))
  })
  after(async () => {
    await testDatabase?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  test('--version prints the package version', async () => {
    const run = await runCliProcess(['--version'])
    assert.equal(run.code, 0, run.stderr)
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
    assert.equal(run.stdout, `${version}\n`)
  })

  test('migrate', async () => {
    const run = await cli('migrate', '--json')
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual(JSON.parse(run.stdout), { applied: [] })
  })

  test('org: list, and a usage error exits 2', async () => {
    const run = await cli('org', 'list', '--json')
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual(
      JSON.parse(run.stdout).organizations.map((o: { name: string }) => o.name),
      ['Smoke'],
    )
    const usage = await cli('org', 'create')
    assert.equal(usage.code, 2)
    assert.match(usage.stderr, /required option '--name <name>' not specified/)
  })

  test('client: a failed operation exits 1', async () => {
    const run = await cli('client', 'revoke', 'cl_nope')
    assert.equal(run.code, 1)
    assert.equal(run.stderr, 'error: No client cl_nope\n')
  })

  test('import', async () => {
    const example = fileURLToPath(new URL('../examples/import.json', import.meta.url))
    const run = await cli('import', example, '--org', '1', '--json')
    assert.equal(run.code, 0, run.stderr)
    assert.ok(JSON.parse(run.stdout).experts.created > 0)
  })

  test('inquiries and webhook', async () => {
    const inquiries = await cli('inquiries', 'list', '--org', '1', '--json')
    assert.equal(inquiries.code, 0, inquiries.stderr)
    assert.deepEqual(JSON.parse(inquiries.stdout), { inquiries: [], next_cursor: null })
    const webhook = await cli('webhook', 'show', '--org', '1')
    assert.equal(webhook.code, 0, webhook.stderr)
    assert.equal(webhook.stdout, 'Organization 1 has no webhook.\n')
  })

  test('people: --password-stdin reads the real standard input', async () => {
    const child = spawnCli(
      [
        '--db',
        testDatabase.url,
        'people',
        'add',
        '--org',
        '1',
        '--email',
        'smoke.owner@example.edu',
        '--role',
        'owner',
        '--password-stdin',
        '--json',
      ],
      {},
      { stdin: true },
    )
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr?.on('data', (chunk) => {
      stderr += chunk
    })
    const code = new Promise<number | null>((resolve) => child.on('close', resolve))
    child.stdin?.end('violet-harbour-compass-42\n')
    assert.equal(await code, 0, stderr)
    assert.deepEqual(JSON.parse(stdout), {
      id: 1,
      email: 'smoke.owner@example.edu',
      role: 'owner',
      invite_url: null,
    })
  })

  test('search rebuild', async () => {
    const run = await cli('search', 'rebuild', '--json')
    assert.equal(run.code, 0, run.stderr)
    assert.deepEqual(JSON.parse(run.stdout).rebuilt, [1])
  })

  test('backup', async () => {
    const run = await cli('backup', join(dir, 'copy.sqlite'), '--json')
    assert.equal(run.code, 0, run.stderr)
    assert.ok(JSON.parse(run.stdout).pages > 0)
  })
})

describe('serve --demo (the quick start)', () => {
  test('on an empty database prints credentials, a curl that returns a token and the demo owner; SIGTERM exits 0', async () => {
    const testDatabase = await createTestDatabase('sqlite')
    const child = spawnCli(['--db', testDatabase.url, 'serve', '--demo'], { HOST: '127.0.0.1', PORT: '0' })
    try {
      const output = await waitForOutput(child, /one-time password \S+/)
      const port = Number(/Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1])
      assert.ok(port > 0, output)
      const clientId = /client_id: (\S+)/.exec(output)?.[1]
      const clientSecret = /client_secret: (\S+)/.exec(output)?.[1]
      const curl = /curl -s -X POST (\S+) -d grant_type=client_credentials/.exec(output)
      assert.ok(clientId && clientSecret && curl, output)
      const response = await fetch(present(curl[1]), {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: clientSecret,
        }),
      })
      assert.equal(response.status, 200)
      const token = parsed(TokenAnswer, await response.json()).data.accessToken
      const expert = await fetch(`http://127.0.0.1:${port}/v2/organization/1/expert`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          firstname: 'Q',
          lastname: 'Start',
          job_title: 'x',
          email: 'q@s.example',
          company: 'c',
        }),
      })
      assert.equal(expert.status, 200)
      assert.match(output, new RegExp(`Dashboard: http://127\\.0\\.0\\.1:${port}/admin/`))
      const owner = /Sign in as (\S+) with the one-time password (\S+) /.exec(output)
      assert.ok(owner, output)
      const signIn = await fetch(`http://127.0.0.1:${port}/auth/sign-in`, {
        method: 'POST',
        headers: { origin: `http://127.0.0.1:${port}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: owner[1], password: owner[2] }),
      })
      assert.equal(signIn.status, 200)
      const me = parsed(
        Type.Object({ data: Type.Object({ role: Type.String(), password_change_required: Type.Boolean() }) }),
        await signIn.json(),
      )
      assert.deepEqual([me.data.role, me.data.password_change_required], ['owner', true])
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
      child.kill('SIGTERM')
      assert.equal(await exited, 0)
    } finally {
      child.kill('SIGKILL')
      await testDatabase.drop()
    }
  })
})
