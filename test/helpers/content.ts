import { readFileSync } from 'node:fs'
import type { KyselyPlugin } from 'kysely'
import { cliTrail } from '../../src/audit/actor.js'
import { importContent } from '../../src/import/index.js'
import type { TestContext } from './harness.js'

/** examples/import.json, parsed: the documented example doubles as the test fixture. */
export function exampleFile(): Record<string, unknown> & {
  experts: { key: string; email: string; sections: Record<string, unknown> }[]
  spotlights: Record<string, unknown>[]
  questions: Record<string, unknown>[]
  organization: Record<string, unknown>
} {
  return JSON.parse(readFileSync(new URL('../../examples/import.json', import.meta.url), 'utf8'))
}

/** Imports `document` into the organization of `orgId` through the import code the CLI uses. */
export function importDocument(ctx: TestContext, orgId: number, document: unknown, fileName?: string) {
  return importContent(
    ctx.testDatabase.database.db,
    orgId,
    typeof document === 'string' ? document : JSON.stringify(document),
    { now: ctx.clock.now(), trail: cliTrail('import'), ...(fileName ? { fileName } : {}) },
  )
}

/** A Kysely plugin that counts executed queries. */
export function queryCounter(): KyselyPlugin & { count: number } {
  const counter = {
    count: 0,
    transformQuery: (args: { node: never }) => args.node,
    transformResult: async (args: { result: never }) => {
      counter.count++
      return args.result
    },
  }
  return counter as unknown as KyselyPlugin & { count: number }
}

/** Row counts of the content tables, to prove a rejected import changed nothing. */
export async function contentRowCounts(ctx: TestContext): Promise<Record<string, number>> {
  const { db } = ctx.testDatabase.database
  const tables = [
    'experts',
    'usernames',
    'profile_items',
    'expert_import_keys',
    'content_tags',
    'spotlights',
    'spotlight_experts',
    'spotlight_tags',
    'questions',
    'answers',
    'question_tags',
    'organization_profiles',
  ] as const
  const counts: Record<string, number> = {}
  for (const table of tables) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()
    counts[table] = Number(row.n)
  }
  return counts
}
