/**
 * `npm run bench:dashboard`: time to interactive of the dashboard's experts list with 1,000 experts, in
 * headless Chromium on this machine, and the gzip size of what the first screen and the editor load.
 * Needs `npm run build` first. Prints figures; asserts nothing.
 */

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { buildApp } from '../src/app.js'
import { cliWriteContext } from '../src/audit/write-context.js'
import { loadConfig } from '../src/config.js'
import { DASHBOARD_DIR } from '../src/dashboard/routes.js'
import { openDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { rebuildSearchIndexes } from '../src/derived/search-rebuild.js'
import { addPerson } from '../src/people/service.js'
import { launchBrowser } from '../test/helpers/browser.js'
import { buildDataset } from './dataset.js'

const PASSWORD = 'violet-harbour-compass-42'
const RUNS = 5

function gzipSizes(): Record<string, number> {
  const assets = join(DASHBOARD_DIR, 'assets')
  return Object.fromEntries(
    readdirSync(assets).map((name) => [
      name,
      gzipSync(readFileSync(join(assets, name)), { level: 9 }).length,
    ]),
  )
}

const dir = mkdtempSync(join(tmpdir(), 'expertdir-dashboard-bench-'))
const database = openDatabase(join(dir, 'bench.sqlite'))
try {
  await migrateToLatest(database.db)
  const dataset = await buildDataset(
    database.db,
    { fullExperts: 1000, lightExperts: 0, posts: 0, questions: 0 },
    Date.now(),
  )
  // The clones are written in bulk, past the write path that keeps the search index current.
  await rebuildSearchIndexes(database.db, [dataset.orgId])
  const email = 'bench.owner@example.edu'
  await addPerson(cliWriteContext(database.db, dataset.orgId, 'bench', Date.now()), {
    email,
    role: 'owner',
    password: PASSWORD,
  })
  const app = await buildApp({
    config: loadConfig({ logLevel: 'silent', mediaDir: join(dir, 'media'), rateLimitApi: 0 }, {}),
    database,
  })
  const origin = await app.listen({ host: '127.0.0.1', port: 0 })
  const browser = await launchBrowser()
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    await page.goto(`${origin}/admin/experts`)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page
      .getByRole('status')
      .getByText(/^[0-9]+ experts$/)
      .waitFor()
    const total = await page
      .getByRole('status')
      .getByText(/^[0-9]+ experts$/)
      .textContent()
    const times: number[] = []
    for (let run = 0; run < RUNS; run++) {
      await page.goto(`${origin}/admin/experts`)
      // Interactive: the session checked, a token minted, the first page of experts rendered with its links.
      await page
        .getByRole('status')
        .getByText(/^[0-9]+ experts$/)
        .waitFor()
      await page.locator('.expert-row a').nth(19).waitFor()
      times.push(await page.evaluate<number>('performance.now()'))
    }
    times.sort((a, b) => a - b)
    console.log(
      JSON.stringify(
        {
          experts: total,
          timeToInteractiveMs: {
            median: Math.round(times[Math.floor(RUNS / 2)] ?? 0),
            runs: times.map(Math.round),
          },
          gzipBytes: gzipSizes(),
        },
        null,
        2,
      ),
    )
    await context.close()
  } finally {
    await browser.close()
    await app.close()
  }
} finally {
  await database.close()
  rmSync(dir, { recursive: true, force: true })
}
