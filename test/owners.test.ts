import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cliWriteContext } from '../src/audit/write-context.js'
import { ApiError } from '../src/errors.js'
import { createOrganization } from '../src/organizations/repository.js'
import { countOwners } from '../src/people/repository.js'
import { addPerson, removePerson, updatePerson } from '../src/people/service.js'
import { describeEachDialect } from './helpers/harness.js'

const ROUNDS = 24

describeEachDialect('people: an organization keeps an owner under concurrent changes', (ctx) => {
  const asOwner = (id: number) => ({ actor: { kind: 'person', id, role: 'owner' }, action: 'test' }) as const

  async function twoOwners(round: number) {
    const { db } = ctx.testDatabase.database
    const organization = await createOrganization(db, { name: `Owners ${round}` }, ctx.clock.now())
    const add = async (name: string) =>
      (
        await addPerson(cliWriteContext(db, organization.id, 'people add', ctx.clock.now()), {
          email: `${name}.${organization.id}@example.edu`,
          role: 'owner',
          invite: false,
        })
      ).person.id
    return { orgId: organization.id, first: await add('first'), second: await add('second') }
  }

  test(`${ROUNDS} rounds of two owners demoting or removing each other at once leave one owner each time`, async () => {
    const { db } = ctx.testDatabase.database
    for (let round = 0; round < ROUNDS; round++) {
      const { orgId, first, second } = await twoOwners(round)
      const now = ctx.clock.now()
      // Even rounds: both demote the other; odd rounds: one removes, the other demotes.
      const changes = [
        updatePerson({ db, orgId, now, trail: asOwner(first) }, second, { role: 'admin' }),
        round % 2 === 0
          ? updatePerson({ db, orgId, now, trail: asOwner(second) }, first, { role: 'editor' })
          : removePerson({ db, orgId, now, trail: asOwner(second) }, first),
      ]
      const results = await Promise.allSettled(changes)
      assert.equal(await countOwners(db, orgId), 1, `round ${round}: the organization has no owner`)
      const refused = results.filter((result) => result.status === 'rejected')
      assert.equal(refused.length, 1, `round ${round}: exactly one change is refused`)
      const reason = refused[0]?.status === 'rejected' ? refused[0].reason : undefined
      assert.ok(reason instanceof ApiError && reason.code === 'conflict', `round ${round}: ${String(reason)}`)
      assert.match(reason.message, /must keep an owner/)
    }
  })
})
