import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { type FuzzFixture, formatReport, runFuzz } from './helpers/fuzz.js'
import { FUZZ_CONFIG, seedFuzzFixture } from './helpers/fuzz-fixture.js'
import { describeEachDialect } from './helpers/harness.js'

/**
 * The schema-driven fuzzer (`npm run fuzz` runs it at size) over every operation of the OpenAPI
 * document, a few cases each: valid and hostile requests with three tokens must never get a 5xx, and
 * every answer must be the response the document declares for its status.
 */
const CASES = Number(process.env.EXPERTDIR_FUZZ_CASES ?? 2)

describeEachDialect(
  'Schema-driven fuzz',
  (ctx) => {
    let fixture: FuzzFixture
    before(async () => {
      fixture = await seedFuzzFixture({
        app: ctx.app,
        db: ctx.testDatabase.database.db,
        orgId: ctx.tenant.orgId,
        otherOrgId: ctx.other.orgId,
        now: ctx.clock.now,
      })
    })

    test('every operation answers hostile and valid requests without a 5xx and within its declared responses', async () => {
      const report = await runFuzz(ctx.app, fixture, { cases: CASES, seed: 1 })
      assert.ok(report.operations > 250, `only ${report.operations} operations in the document`)
      assert.ok(report.cases >= report.operations * CASES * 0.9, `only ${report.cases} cases were sent`)
      assert.equal(report.failures.length, 0, formatReport(report, ctx.dialect))
    })
  },
  { config: FUZZ_CONFIG },
)
