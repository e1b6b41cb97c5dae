import { readFileSync } from 'node:fs'
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely'
import { cliWriteContext } from '../../src/audit/write-context.js'
import { importContent } from '../../src/import/index.js'
import { createExpert, type TestContext } from './harness.js'

/** examples/import.json, parsed: the documented example doubles as the test fixture. */
export function exampleFile(): Record<string, unknown> & {
  experts: { key: string; email: string; sections: Record<string, unknown>; [field: string]: unknown }[]
  spotlights: Record<string, unknown>[]
  questions: Record<string, unknown>[]
  organization: Record<string, unknown>
} {
  return JSON.parse(readFileSync(new URL('../../examples/import.json', import.meta.url), 'utf8'))
}

/** Imports `document` into the organization of `orgId` through the import code the CLI uses. */
export function importDocument(ctx: TestContext, orgId: number, document: unknown, fileName?: string) {
  return importContent(
    cliWriteContext(ctx.testDatabase.database.db, orgId, 'import', ctx.clock.now()),
    typeof document === 'string' ? document : JSON.stringify(document),
    fileName ? { fileName } : {},
  )
}

/** A Kysely plugin that counts executed queries. */
export function queryCounter(): KyselyPlugin & { count: number } {
  const counter = {
    count: 0,
    transformQuery: (args: PluginTransformQueryArgs) => args.node,
    transformResult: async (args: PluginTransformResultArgs) => {
      counter.count++
      return args.result
    },
  }
  return counter
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

/** A create through some API (an app, another process): returns the envelope's `data`. */
export type ContentWrite = (method: 'POST', url: string, payload: object) => Promise<{ id?: unknown }>

/**
 * The content the read tests watch: two experts, a published post tagging both, and a published
 * question the expert `answeredBy` names has answered. Every write goes through `write`.
 */
export async function createRainContent(
  ctx: TestContext,
  write: ContentWrite,
  options: { lastname: string; answeredBy: 'x' | 'y' },
): Promise<{ expertX: string; expertY: string; postId: number; questionId: number; answerId: number }> {
  const org = ctx.tenant.orgId
  const expertX = await createExpert(ctx, ctx.tenant, { firstname: 'Xena', lastname: options.lastname })
  const expertY = await createExpert(ctx, ctx.tenant, { firstname: 'Yuri', lastname: options.lastname })
  const post = await write('POST', `/v2/spotlight/${org}`, {
    title: 'Rain',
    html: '<p>Rain falls.</p>',
    published: 1,
    tagged: [expertX, expertY],
    tags: ['Weather'],
  })
  const question = await write('POST', `/v2/qanda/${org}`, {
    question: 'Why rain?',
    published: 1,
    tags: ['Weather'],
  })
  const questionId = Number(question.id)
  const answer = await write('POST', `/v2/qanda/${org}/${questionId}/answer`, {
    username: options.answeredBy === 'x' ? expertX : expertY,
    answer: '<p>Clouds.</p>',
  })
  return { expertX, expertY, postId: Number(post.id), questionId, answerId: Number(answer.id) }
}
