/**
 * `npm run eval:similarity`: the finding-by-meaning evaluation (docs/eval.md). A synthetic organization
 * (bench/similarity/generate.ts) is loaded through the import and the works importer's own storing and
 * claiming functions into a fresh SQLite file and a fresh PostgreSQL database (created and dropped), and
 * each is asked through the API: similar experts (precision@5 against co-authors) and experts for a
 * held-out abstract (recall@5), each against the plain keyword search. Exits 1 when recall@5 is below
 * 0.8 or less than twice the keyword search's on either database, unless `--report-only`.
 *
 *   npm run eval:similarity
 *   npm run eval:similarity -- --report-only --dialects sqlite --experts 1000 --queries 200 --seed 41
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { buildApp } from '../../src/app.js'
import { createClient } from '../../src/auth/clients.js'
import { SCOPES } from '../../src/auth/scopes.js'
import { loadConfig } from '../../src/config.js'
import { type DialectName, openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { createOrganization } from '../../src/organizations/repository.js'
import { type Evaluation, evaluate, goalsMet, type Send } from './evaluate.js'
import { fingerprintOf, generateOrganization } from './generate.js'
import { loadOrganization } from './load.js'

const { values: flags } = parseArgs({
  options: {
    seed: { type: 'string', default: '41' },
    experts: { type: 'string', default: '1000' },
    queries: { type: 'string', default: '200' },
    dialects: { type: 'string', default: 'sqlite,postgres' },
    postgres: {
      type: 'string',
      default: process.env.EXPERTDIR_EVAL_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
    'report-only': { type: 'boolean', default: false },
  },
})

function positive(name: string, text: string | undefined): number {
  const value = Number(text)
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`)
  return value
}

interface Target {
  dialect: DialectName
  url: string
  drop(): Promise<void>
}

async function freshDatabase(dialect: DialectName, admin: string): Promise<Target> {
  if (dialect === 'postgres') {
    const name = `expertdir_eval_${process.pid}`
    const client = new pg.Client({ connectionString: admin })
    await client.connect()
    await client.query(`drop database if exists ${name} with (force)`)
    await client.query(`create database ${name}`)
    await client.end()
    const url = new URL(admin)
    url.pathname = `/${name}`
    return {
      dialect,
      url: url.toString(),
      async drop() {
        const cleanup = new pg.Client({ connectionString: admin })
        await cleanup.connect()
        await cleanup.query(`drop database if exists ${name} with (force)`)
        await cleanup.end()
      },
    }
  }
  const dir = mkdtempSync(join(os.tmpdir(), 'expertdir-eval-'))
  return {
    dialect,
    url: join(dir, 'eval.sqlite'),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** Requests through `app.inject`, each with the bearer token. */
function sender(app: FastifyInstance, token: string): Send {
  return async (method, url, payload) => {
    const response = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    })
    return { status: response.statusCode, body: response.json() }
  }
}

async function tokenFor(app: FastifyInstance, clientId: string, clientSecret: string): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/v2/oauth/token',
    payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
  })
  const token: unknown = response.json().data?.accessToken
  if (response.statusCode !== 200 || typeof token !== 'string')
    throw new Error(`token request failed: ${response.body}`)
  return token
}

const figure = (value: number | null) => (value === null ? '   —  ' : value.toFixed(3).padStart(6))

function report(dialect: DialectName, loaded: string, evaluation: Evaluation): string {
  const { similar, match } = evaluation
  const row = (
    measure: string,
    meaning: number | null,
    keyword: number,
    backoff: string,
    reference: number,
    queries: number,
  ) =>
    `  ${measure.padEnd(53)} ${figure(meaning)}  ${figure(keyword)}  ${backoff.padStart(7)}  ${figure(reference)}  ${String(queries).padStart(7)}`
  const lines = [
    `${dialect}: ${loaded}; queried in ${evaluation.seconds.toFixed(1)} s`,
    `  ${'measure'.padEnd(53)} meaning  keyword  backoff   tf-idf  queries`,
    row(
      'precision@5: similar experts who are co-authors',
      similar.meaning,
      similar.keyword,
      '',
      similar.reference,
      similar.queries,
    ),
    row(
      'recall@5: held-out abstract finds one of its authors',
      match.meaning,
      match.keyword,
      match.keywordBackoff === undefined ? '' : figure(match.keywordBackoff),
      match.reference,
      match.queries,
    ),
    `  (precision@5 at best ${similar.ceiling.toFixed(3)}: some experts have fewer than five co-authors; goal: recall@5 >= 0.800 and >= 2x keyword;`,
    `   tf-idf: a yardstick computed in memory over the generated texts, not through the API)`,
  ]
  if (match.unavailable ?? similar.unavailable)
    lines.push(`  similar/match: ${match.unavailable ?? similar.unavailable}`)
  return lines.join('\n')
}

/** Loads and evaluates the organization on a fresh database of `dialect`; returns its report and verdict. */
async function runOn(dialect: DialectName): Promise<{ text: string; met: boolean }> {
  const organization = generateOrganization(options)
  const target = await freshDatabase(dialect, flags.postgres)
  const mediaDir = mkdtempSync(join(os.tmpdir(), 'expertdir-eval-media-'))
  const database = openDatabase(target.url)
  let app: FastifyInstance | undefined
  try {
    await migrateToLatest(database.db)
    const now = Date.now()
    const org = await createOrganization(database.db, { name: 'Eval University' }, now)
    const client = await createClient(database.db, org.id, 'eval', now, SCOPES)
    const started = performance.now()
    const loaded = await loadOrganization(database.db, org.id, organization, now)
    const loadSeconds = (performance.now() - started) / 1000
    app = await buildApp({
      config: loadConfig({ rateLimitApi: 0, sources: [], logLevel: 'error', mediaDir }, {}),
      database,
    })
    const token = await tokenFor(app, client.client_id, client.client_secret)
    const evaluation = await evaluate(sender(app, token), org.id, organization, loaded.usernames)
    const goals = goalsMet(evaluation)
    const summary = `${organization.experts.length} experts, ${loaded.works} works (${loaded.claims} claims), ${organization.heldOut.length} held-out abstracts, loaded in ${loadSeconds.toFixed(1)} s`
    return {
      text: `${report(dialect, summary, evaluation)}\n  goals ${goals.met ? 'met' : 'not met'}: ${goals.why}\n`,
      met: goals.met,
    }
  } finally {
    await app?.close()
    await database.close()
    await target.drop()
    rmSync(mediaDir, { recursive: true, force: true })
  }
}

const dialects: DialectName[] = []
for (const name of (flags.dialects ?? '').split(',').map((part) => part.trim())) {
  if (name !== 'sqlite' && name !== 'postgres')
    throw new Error(`--dialects: unknown ${name} (sqlite, postgres)`)
  dialects.push(name)
}
const options = {
  seed: positive('seed', flags.seed),
  experts: positive('experts', flags.experts),
  queries: positive('queries', flags.queries),
}
console.log(
  `organization: seed ${options.seed}, ${options.experts} experts, fingerprint ${fingerprintOf(generateOrganization(options)).slice(0, 16)}\n`,
)
// The databases run side by side: PostgreSQL's round trips leave the CPU to SQLite's work.
const verdicts = await Promise.all(
  dialects.map(async (dialect) => {
    const { text, met } = await runOn(dialect)
    console.log(text)
    return met
  }),
)
if (verdicts.includes(false) && !flags['report-only']) process.exitCode = 1
