import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { DASHBOARD_DIR } from '../../src/dashboard/routes.js'

/**
 * The dashboard's built files: `npm test` builds them first (`pretest`); a single test file run on a
 * fresh checkout builds them here.
 */
export function ensureDashboardBuilt(): void {
  if (existsSync(join(DASHBOARD_DIR, 'index.html'))) return
  execFileSync('npm', ['run', 'build', '--silent', '-w', '@expertdir/dashboard'], { stdio: 'inherit' })
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** A page of its own context, collecting what the browser says about the page. */
export interface DashboardPage {
  page: Page
  context: BrowserContext
  /** Content-Security-Policy violations and uncaught errors: a test ends with none. */
  problems: string[]
  close(): Promise<void>
}

export async function openPage(
  browser: Browser,
  viewport: { width: number; height: number } = { width: 1280, height: 900 },
): Promise<DashboardPage> {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`))
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) problems.push(message.text())
  })
  return { page, context, problems, close: () => context.close() }
}

/** A page of its own context, closed (with its problems asserted) whatever the outcome of `run`. */
export async function withPage(
  browser: Browser | undefined,
  run: (page: Page) => Promise<void>,
  viewport?: { width: number; height: number },
): Promise<void> {
  assert.ok(browser)
  const opened = await openPage(browser, viewport)
  try {
    await run(opened.page)
    assert.deepEqual(opened.problems, [], 'no CSP violation or uncaught error')
  } finally {
    await opened.close()
  }
}

/** Opens `url` (an address of the dashboard) and signs in on the sign-in screen it shows. */
export async function signInAt(page: Page, url: string, person: { email: string; password: string }) {
  await page.goto(url)
  await page.getByLabel('Email').fill(person.email)
  await page.getByLabel('Password').fill(person.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
}

/**
 * Runs axe-core on the page as it is now and fails on any serious or critical violation. The script is
 * evaluated through the debugging protocol, which the page's CSP (no inline scripts) does not govern.
 */
export async function assertAccessible(page: Page, screen: string): Promise<void> {
  // The dashboard changes screens without loading a new document: axe-core, once evaluated, stays.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate(async () => {
    const result = await globalThis.axe.run()
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id}: ${violation.help} (${violation.nodes.map((n) => n.target).join(' | ')})`,
      )
  })
  assert.deepEqual(violations, [], `axe-core on ${screen}`)
}

declare global {
  /** axe-core, once evaluated in a page by `assertAccessible`. */
  var axe: { run(): Promise<{ violations: AxeViolation[] }> }
}

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/** With `EXPERTDIR_SCREENSHOTS=folder`, saves a screenshot of the page there (the README's pictures). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const folder = process.env.EXPERTDIR_SCREENSHOTS
  if (!folder) return
  mkdirSync(folder, { recursive: true })
  await page.screenshot({ path: join(folder, `${name}.png`), fullPage: false })
}

/** The page's width as laid out: more than the viewport's means sideways scrolling. */
export const pageWidth = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth')
